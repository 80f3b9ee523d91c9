import { Button, FileButton, Group, Image, Stack, Text, TextInput } from '@mantine/core';
import { IconUpload } from '@tabler/icons-react';
import { useState } from 'react';
import { toApiError } from '../../api/errors';
import { uploadImage } from './api';
import { AlignField, NumberField, PaddingField } from './fields';
import type { BlockOf } from './types';

type Image = BlockOf<'image'>;

/**
 * An image block's fields: upload (through the project's uploads, ≤ 5 MB) or a URL, the alt text (required:
 * read aloud, and shown when images are off), a link, a width and the alignment.
 */
export function ImageFields({
  block,
  projectId,
  update,
}: {
  block: Image;
  projectId: string;
  update: (patch: Partial<Image>, field?: string) => void;
}) {
  const [uploading, setUploading] = useState(false);
  const [uploadError, setUploadError] = useState<string | null>(null);
  const upload = async (file: File | null) => {
    if (!file) return;
    setUploading(true);
    setUploadError(null);
    try {
      const r = await uploadImage(projectId, file);
      update({ src: r.url });
    } catch (err) {
      setUploadError(`The image was not uploaded: ${toApiError(err).message}`);
    } finally {
      setUploading(false);
    }
  };
  return (
    <Stack gap="sm">
      {block.src && <Image src={block.src} alt="" h={120} fit="contain" radius="sm" />}
      <Group gap="xs">
        <FileButton onChange={(f) => void upload(f)} accept="image/png,image/jpeg,image/gif,image/webp">
          {(props) => (
            <Button {...props} variant="light" leftSection={<IconUpload size={16} />} loading={uploading}>
              {block.src ? 'Replace image' : 'Upload image'}
            </Button>
          )}
        </FileButton>
        <Text size="xs" c="dimmed">
          PNG, JPEG, GIF or WebP, at most 5 MB (under 1 MB loads fast on a phone).
        </Text>
      </Group>
      {uploadError && (
        <Text size="sm" c="red.9" role="alert">
          {uploadError}
        </Text>
      )}
      <TextInput
        label="Image address"
        placeholder="https://…"
        value={block.src}
        onChange={(e) => update({ src: e.currentTarget.value.trim() }, 'src')}
      />
      <TextInput
        label="Alt text"
        description="Says what the image shows, for screen readers and mail with images off."
        withAsterisk
        value={block.alt}
        error={block.alt.trim() ? undefined : 'Describe the image: alt text is required'}
        onChange={(e) => update({ alt: e.currentTarget.value }, 'alt')}
      />
      <TextInput
        label="Link"
        placeholder="https://… (optional)"
        value={block.href ?? ''}
        onChange={(e) => update({ href: e.currentTarget.value.trim() || null }, 'href')}
      />
      <NumberField
        label="Width"
        description="Empty: the content's width"
        value={block.width}
        min={16}
        max={800}
        nullable
        onChange={(width) => update({ width }, 'width')}
      />
      <AlignField value={block.align} onChange={(align) => update({ align })} />
      <PaddingField value={block.padding} onChange={(padding) => update({ padding }, 'padding')} />
    </Stack>
  );
}
