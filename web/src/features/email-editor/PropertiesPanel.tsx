import { Checkbox, Group, Select, Skeleton, Stack, Text, Textarea, TextInput, ActionIcon, Button } from '@mantine/core';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { lazy, Suspense, type ComponentProps } from 'react';
import { nameOf } from './catalog';
import { AlignField, ColorField, NumberField, PaddingField } from './fields';
import { ImageFields } from './ImageFields';
import { SOCIAL_NETWORKS, type AnyBlock, type BlockOf } from './types';

interface PanelProps {
  block: AnyBlock | undefined;
  projectId: string;
  /** Changes fields of the selected block; `field` merges keystrokes in one undo step. */
  update: (patch: Partial<AnyBlock>, field?: string) => void;
}

// TipTap and ProseMirror load when a text or footer block is first selected, not with the editor.
const LazyRichText = lazy(() => import('./RichText').then((m) => ({ default: m.RichText })));
function RichText(props: ComponentProps<typeof LazyRichText>) {
  return (
    <Suspense fallback={<Skeleton height={160} />}>
      <LazyRichText {...props} />
    </Suspense>
  );
}

/** The selected block's properties: its text, colours, padding, alignment, sizes, links, alt text. */
export function PropertiesPanel({ block, projectId, update }: PanelProps) {
  if (!block)
    return (
      <Text size="sm" c="dimmed" py="md">
        Select a block in the canvas to change it.
      </Text>
    );
  // Each type's update takes its own fields; the panel's `update` takes any block's.
  const up = update as <B extends AnyBlock>(patch: Partial<B>, field?: string) => void;
  return (
    <Stack gap="sm" data-testid="block-properties" key={block.id}>
      <Text fw={600}>{nameOf(block.type)}</Text>
      <Fields block={block} projectId={projectId} update={up} />
    </Stack>
  );
}

function Fields({
  block: b,
  projectId,
  update,
}: {
  block: AnyBlock;
  projectId: string;
  update: <B extends AnyBlock>(patch: Partial<B>, field?: string) => void;
}) {
  switch (b.type) {
    case 'heading':
      return (
        <>
          <TextInput
            label="Heading text"
            value={b.text}
            onChange={(e) => update({ text: e.currentTarget.value }, 'text')}
          />
          <Select
            label="Level"
            allowDeselect={false}
            value={String(b.level)}
            data={[
              { value: '1', label: 'Title (h1)' },
              { value: '2', label: 'Section (h2)' },
              { value: '3', label: 'Subsection (h3)' },
            ]}
            onChange={(v) => update<BlockOf<'heading'>>({ level: Number(v) as 1 | 2 | 3 })}
          />
          <AlignField value={b.align} onChange={(align) => update({ align })} />
          <ColorField label="Colour" clearable value={b.color} onChange={(color) => update({ color }, 'color')} />
          <PaddingField value={b.padding} onChange={(padding) => update({ padding }, 'padding')} />
        </>
      );
    case 'text':
      return (
        <>
          <RichText label="Text" value={b.html} onChange={(html) => update({ html }, 'html')} />
          <AlignField value={b.align} onChange={(align) => update({ align })} />
          <ColorField label="Colour" clearable value={b.color} onChange={(color) => update({ color }, 'color')} />
          <NumberField
            label="Font size"
            description="Empty: the style's size"
            value={b.fontSize}
            min={10}
            max={40}
            nullable
            onChange={(fontSize) => update({ fontSize }, 'fontSize')}
          />
          <PaddingField value={b.padding} onChange={(padding) => update({ padding }, 'padding')} />
        </>
      );
    case 'image':
      return <ImageFields block={b} projectId={projectId} update={update} />;
    case 'button':
      return (
        <>
          <TextInput
            label="Label"
            withAsterisk
            value={b.label}
            onChange={(e) => update({ label: e.currentTarget.value }, 'label')}
          />
          <TextInput
            label="Link"
            description="https://…, mailto:… or a variable such as {{ manageUrl }}"
            withAsterisk
            value={b.href}
            onChange={(e) => update({ href: e.currentTarget.value.trim() }, 'href')}
          />
          <AlignField value={b.align} onChange={(align) => update({ align })} />
          <ColorField
            label="Button colour"
            clearable
            value={b.color}
            onChange={(color) => update({ color }, 'color')}
          />
          <ColorField
            label="Text colour"
            value={b.textColor}
            onChange={(c) => c && update({ textColor: c }, 'textColor')}
          />
          <NumberField
            label="Corner radius"
            value={b.borderRadius}
            min={0}
            max={40}
            onChange={(r) => r !== null && update({ borderRadius: r }, 'radius')}
          />
          <PaddingField value={b.padding} onChange={(padding) => update({ padding }, 'padding')} />
        </>
      );
    case 'divider':
      return (
        <>
          <ColorField label="Colour" value={b.color} onChange={(c) => c && update({ color: c }, 'color')} />
          <NumberField
            label="Thickness"
            value={b.thickness}
            min={1}
            max={10}
            onChange={(t) => t !== null && update({ thickness: t }, 'thickness')}
          />
          <PaddingField value={b.padding} onChange={(padding) => update({ padding }, 'padding')} />
        </>
      );
    case 'spacer':
      return (
        <NumberField
          label="Height"
          value={b.height}
          min={4}
          max={200}
          onChange={(h) => h !== null && update({ height: h }, 'height')}
        />
      );
    case 'social':
      return <SocialFields block={b} update={update} />;
    case 'footer':
      return (
        <>
          <RichText label="Footer text" value={b.html} onChange={(html) => update({ html }, 'html')} />
          <Checkbox
            label="Unsubscribe link"
            checked={b.unsubscribe}
            onChange={(e) => update({ unsubscribe: e.currentTarget.checked })}
          />
          <Checkbox
            label="Preferences link"
            checked={b.preferences}
            onChange={(e) => update({ preferences: e.currentTarget.checked })}
          />
          <AlignField value={b.align} onChange={(align) => update({ align })} />
        </>
      );
    case 'html':
      return (
        <Textarea
          label="HTML"
          description="Sent as written; variables work inside."
          autosize
          minRows={6}
          maxRows={20}
          value={b.html}
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 13 } }}
          onChange={(e) => update({ html: e.currentTarget.value }, 'html')}
        />
      );
    case 'columns':
      return (
        <>
          <Text size="sm" c="dimmed">
            Add blocks to each column in the canvas; on a phone the columns stack.
          </Text>
          <ColorField
            label="Background"
            clearable
            value={b.backgroundColor}
            onChange={(c) => update({ backgroundColor: c }, 'bg')}
          />
          <PaddingField value={b.padding} onChange={(padding) => update({ padding }, 'padding')} />
        </>
      );
    case 'if':
      return (
        <TextInput
          label="Condition"
          description={'A Liquid condition without {% %}, e.g. contact.plan == "pro"'}
          value={b.condition}
          onChange={(e) => update({ condition: e.currentTarget.value }, 'condition')}
        />
      );
    case 'for':
      return (
        <>
          <TextInput
            label="Item name"
            value={b.variable}
            onChange={(e) => update({ variable: e.currentTarget.value }, 'variable')}
          />
          <TextInput
            label="Collection"
            description="The list to repeat over, e.g. items (from the event's or the send call's data)"
            value={b.collection}
            onChange={(e) => update({ collection: e.currentTarget.value }, 'collection')}
          />
        </>
      );
  }
}

function SocialFields({
  block,
  update,
}: {
  block: BlockOf<'social'>;
  update: <B extends AnyBlock>(patch: Partial<B>, field?: string) => void;
}) {
  const setLinks = (links: BlockOf<'social'>['links'], field?: string) => update<BlockOf<'social'>>({ links }, field);
  return (
    <>
      {block.links.map((l, i) => (
        <Group key={i} gap={6} align="flex-end" wrap="nowrap">
          <Select
            label="Network"
            w={130}
            allowDeselect={false}
            value={l.network}
            data={SOCIAL_NETWORKS.map((n) => ({ value: n, label: n === 'x' ? 'X' : n[0].toUpperCase() + n.slice(1) }))}
            onChange={(n) =>
              setLinks(block.links.map((x, j) => (j === i ? { ...x, network: n as typeof l.network } : x)))
            }
          />
          <TextInput
            label="Address"
            style={{ flex: 1 }}
            value={l.url}
            onChange={(e) =>
              setLinks(
                block.links.map((x, j) => (j === i ? { ...x, url: e.currentTarget.value.trim() } : x)),
                `url${i}`,
              )
            }
          />
          <ActionIcon
            variant="subtle"
            color="red"
            mb={4}
            aria-label={`Remove link ${i + 1}`}
            disabled={block.links.length === 1}
            onClick={() => setLinks(block.links.filter((_, j) => j !== i))}
          >
            <IconTrash size={16} />
          </ActionIcon>
        </Group>
      ))}
      <Button
        variant="subtle"
        size="compact-sm"
        leftSection={<IconPlus size={14} />}
        disabled={block.links.length >= 12}
        onClick={() => setLinks([...block.links, { network: 'website', url: 'https://' }])}
        style={{ alignSelf: 'flex-start' }}
      >
        Add a link
      </Button>
      <AlignField value={block.align} onChange={(align) => update({ align })} />
    </>
  );
}
