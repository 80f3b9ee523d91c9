/** Small inputs shared by the properties and style panels: colour, padding, alignment, numbers. */
import { ColorInput, Input, NumberInput, SegmentedControl, SimpleGrid } from '@mantine/core';

type Align = 'left' | 'center' | 'right';
/** Padding in pixels, [top, right, bottom, left] (the schema holds it as an array of 4). */
type Padding = number[];

/** A #rrggbb colour; `null` when cleared (the block then takes the style's colour), if `clearable`. */
export function ColorField({
  label,
  value,
  onChange,
  clearable,
  description,
}: {
  label: string;
  value: string | null | undefined;
  onChange: (v: string | null) => void;
  clearable?: boolean;
  description?: string;
}) {
  return (
    <ColorInput
      label={label}
      description={description}
      format="hex"
      value={value ?? ''}
      placeholder={clearable ? 'From the style' : undefined}
      // The schema takes #rgb or #rrggbb: a half-typed colour is kept out of the document.
      onChange={(v) => {
        if (v === '' && clearable) onChange(null);
        else if (/^#(?:[0-9a-fA-F]{3}){1,2}$/.test(v)) onChange(v);
      }}
      swatches={['#4f46e5', '#0f766e', '#b91c1c', '#1f2937', '#ffffff', '#f4f4f5']}
      eyeDropperButtonProps={{ 'aria-label': `Pick the ${label.toLowerCase()} from the screen` }}
    />
  );
}

export function AlignField({ value, onChange }: { value: Align; onChange: (v: Align) => void }) {
  return (
    <Input.Wrapper label="Alignment">
      <SegmentedControl
        fullWidth
        value={value}
        onChange={(v) => onChange(v as Align)}
        data={[
          { value: 'left', label: 'Left' },
          { value: 'center', label: 'Centre' },
          { value: 'right', label: 'Right' },
        ]}
      />
    </Input.Wrapper>
  );
}

/** A whole number within the schema's limits; an empty field gives `null` when `nullable`. */
export function NumberField({
  label,
  value,
  onChange,
  min,
  max,
  nullable,
  suffix = ' px',
  description,
}: {
  label: string;
  value: number | null | undefined;
  onChange: (v: number | null) => void;
  min: number;
  max: number;
  nullable?: boolean;
  suffix?: string;
  description?: string;
}) {
  return (
    <NumberInput
      label={label}
      description={description}
      value={value ?? ''}
      min={min}
      max={max}
      clampBehavior="strict"
      allowDecimal={false}
      suffix={suffix}
      onChange={(v) => {
        if (v === '' || v === undefined) {
          if (nullable) onChange(null);
        } else if (typeof v === 'number') onChange(v);
      }}
    />
  );
}

const SIDES = ['Top', 'Right', 'Bottom', 'Left'] as const;

/** Padding in pixels, top/right/bottom/left; cleared when all four are emptied. */
export function PaddingField({
  value,
  onChange,
}: {
  value: Padding | null | undefined;
  onChange: (v: Padding | null) => void;
}) {
  const p = value?.length === 4 ? value : [10, 25, 10, 25];
  return (
    <Input.Wrapper label="Padding" description="Pixels around the block; empty: the block's default spacing">
      <SimpleGrid cols={4} spacing={6}>
        {SIDES.map((side, i) => (
          <NumberInput
            key={side}
            aria-label={`Padding ${side.toLowerCase()}`}
            placeholder={side}
            value={value ? value[i] : ''}
            min={0}
            max={120}
            clampBehavior="strict"
            allowDecimal={false}
            hideControls
            onChange={(v) => {
              const next = [...p];
              next[i] = typeof v === 'number' ? v : 0;
              onChange(next);
            }}
          />
        ))}
      </SimpleGrid>
    </Input.Wrapper>
  );
}
