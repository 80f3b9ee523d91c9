import { Button, Select, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { IconDeviceFloppy } from '@tabler/icons-react';
import { useState } from 'react';
import { notifyError, notifySuccess } from '../../components/notify';
import { emailStyleKey, saveEmailStyle } from './api';
import { ColorField, NumberField } from './fields';
import { SAFE_FONTS, type BlocksDocument, type BlocksStyle } from './types';

interface StylePanelProps {
  projectId: string;
  doc: BlocksDocument;
  setStyle: (patch: Partial<BlocksStyle>, field?: string) => void;
  setPreheader: (preheader: string | null) => void;
}

/**
 * The document's global style (brand colour, backgrounds, text and link colours, font, width, logo),
 * its preheader, and "Save as project style": new documents of the project start from the saved one.
 */
export function StylePanel({ projectId, doc, setStyle, setPreheader }: StylePanelProps) {
  const s = doc.style;
  const qc = useQueryClient();
  const [saving, setSaving] = useState(false);
  const saveAsProject = async () => {
    setSaving(true);
    try {
      const saved = await saveEmailStyle(projectId, s);
      qc.setQueryData(emailStyleKey(projectId), saved);
      notifySuccess('Saved as the project style: new emails start from it.');
    } catch (err) {
      notifyError(err, 'The project style was not saved');
    } finally {
      setSaving(false);
    }
  };
  return (
    <Stack gap="sm" data-testid="style-panel">
      <TextInput
        label="Preheader"
        description="The line mail apps show after the subject."
        value={doc.preheader ?? ''}
        maxLength={300}
        onChange={(e) => setPreheader(e.currentTarget.value || null)}
      />
      <SimpleGrid cols={2} spacing="sm">
        <ColorField
          label="Brand colour"
          value={s.brandColor}
          onChange={(c) => c && setStyle({ brandColor: c }, 'brand')}
        />
        <ColorField label="Link colour" value={s.linkColor} onChange={(c) => c && setStyle({ linkColor: c }, 'link')} />
        <ColorField label="Text colour" value={s.textColor} onChange={(c) => c && setStyle({ textColor: c }, 'text')} />
        <ColorField
          label="Background"
          value={s.backgroundColor}
          onChange={(c) => c && setStyle({ backgroundColor: c }, 'bg')}
        />
        <ColorField
          label="Content background"
          value={s.contentBackground}
          onChange={(c) => c && setStyle({ contentBackground: c }, 'content')}
        />
      </SimpleGrid>
      <Select
        label="Font"
        description="Fonts every mail app has."
        allowDeselect={false}
        value={s.fontFamily}
        data={SAFE_FONTS.map((f) => ({ value: f, label: f.split(',')[0].replace(/'/g, '') }))}
        onChange={(f) => f && setStyle({ fontFamily: f as BlocksStyle['fontFamily'] })}
      />
      <SimpleGrid cols={2} spacing="sm">
        <NumberField
          label="Text size"
          value={s.fontSize}
          min={12}
          max={22}
          onChange={(n) => n !== null && setStyle({ fontSize: n }, 'size')}
        />
        <NumberField
          label="Width"
          value={s.width}
          min={480}
          max={800}
          onChange={(n) => n !== null && setStyle({ width: n }, 'width')}
        />
      </SimpleGrid>
      <TextInput
        label="Logo address"
        description="An https:// image shown above the content; empty for none."
        placeholder="https://…"
        value={s.logoUrl ?? ''}
        onChange={(e) => setStyle({ logoUrl: e.currentTarget.value.trim() || null }, 'logo')}
      />
      {s.logoUrl && (
        <TextInput
          label="Logo alt text"
          withAsterisk
          value={s.logoAlt ?? ''}
          error={s.logoAlt?.trim() ? undefined : 'Name the logo (your brand): alt text is required'}
          onChange={(e) => setStyle({ logoAlt: e.currentTarget.value || null }, 'logoAlt')}
        />
      )}
      <Text size="xs" c="dimmed">
        The project style is what new emails start from; emails already written keep theirs.
      </Text>
      <Button
        variant="light"
        leftSection={<IconDeviceFloppy size={16} />}
        loading={saving}
        onClick={() => void saveAsProject()}
        style={{ alignSelf: 'flex-start' }}
      >
        Save as project style
      </Button>
    </Stack>
  );
}
