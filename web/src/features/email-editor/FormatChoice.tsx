import { Button, Group, Stack, Text } from '@mantine/core';
import { IconTransform } from '@tabler/icons-react';
import { useState } from 'react';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { FORMAT_LABELS, type Format } from './content';

interface FormatChoiceProps {
  format: Format;
  /** New content: any format may be chosen. Saved content keeps its own, or is converted forward. */
  isNew: boolean;
  onChoose: (f: Format) => void;
  /**
   * Converts saved content: blocks → MJML (the generated MJML becomes the body), MJML → HTML (the
   * compiled HTML). Null while the preview that holds the result has not arrived.
   */
  onConvert: ((to: Format) => void) | null;
}

const NEXT: Partial<Record<Format, Format>> = { blocks: 'mjml', mjml: 'html' };

/**
 * How the message is written: "Visual editor", "MJML" or "HTML". Content keeps its format; it may be
 * converted one way (blocks → MJML → HTML) after a confirmation, since the way back is not offered.
 */
export function FormatChoice({ format, isNew, onChoose, onConvert }: FormatChoiceProps) {
  const [asking, setAsking] = useState(false);
  const next = NEXT[format];
  if (isNew)
    return (
      // Toggle buttons (aria-pressed) rather than a segmented control: Button is already on every screen.
      <Stack gap={4}>
        <Text size="sm" fw={500} id="format-choice-label">
          Write it with
        </Text>
        <Button.Group aria-labelledby="format-choice-label">
          {(['blocks', 'mjml', 'html'] as const).map((f) => (
            <Button
              key={f}
              variant={format === f ? 'filled' : 'default'}
              aria-pressed={format === f}
              onClick={() => format !== f && onChoose(f)}
            >
              {FORMAT_LABELS[f]}
            </Button>
          ))}
        </Button.Group>
      </Stack>
    );
  return (
    <Group gap="sm" data-testid="format">
      <Text size="sm">
        Written with the <b>{FORMAT_LABELS[format]}</b>
        {format === 'blocks' ? '' : ' format'}.
      </Text>
      {next && (
        <Button
          variant="subtle"
          size="compact-sm"
          leftSection={<IconTransform size={14} />}
          disabled={!onConvert}
          onClick={() => setAsking(true)}
        >
          Convert to {FORMAT_LABELS[next]}
        </Button>
      )}
      {next && (
        <ConfirmDialog
          opened={asking}
          onClose={() => setAsking(false)}
          title={`Convert to ${FORMAT_LABELS[next]}?`}
          confirmLabel={`Convert to ${FORMAT_LABELS[next]}`}
          onConfirm={async () => onConvert?.(next)}
        >
          <Text size="sm">
            The {format === 'blocks' ? 'blocks become MJML' : 'MJML becomes the HTML it compiles to'}, which you then
            edit as code. There is no way back to the {FORMAT_LABELS[format]} for this{' '}
            {format === 'blocks' ? 'message' : 'body'}; the change is saved with the next save.
          </Text>
        </ConfirmDialog>
      )}
    </Group>
  );
}
