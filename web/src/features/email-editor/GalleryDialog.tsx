import { Badge, Button, Card, Group, Modal, SimpleGrid, Skeleton, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { ErrorAlert } from '../../components/ErrorAlert';
import type { PreviewAnswer } from '../../components/PreviewPane';
import { projectKeys } from '../projects/api';
import { previewTemplate } from '../templates/api';
import { useGallery, type GalleryTemplate } from './api';

/** The thumbnail's scale: a 600 px wide mail shown 240 px wide. */
const SCALE = 0.4;

/** A starter's first screen, rendered by the server (`POST /templates/preview`) in a scaled, inert frame. */
function Thumbnail({ projectId, g }: { projectId: string; g: GalleryTemplate }) {
  const preview = useQuery({
    queryKey: [...projectKeys.one(projectId), 'gallery-thumbnail', g.key] as const,
    queryFn: ({ signal }) =>
      previewTemplate(
        projectId,
        { subject: g.subject, body: '', type: g.type, format: 'blocks', blocks: g.blocks } as never,
        signal,
      ) as Promise<PreviewAnswer>,
    staleTime: Infinity,
    retry: false,
  });
  return (
    <div style={{ height: 260, overflow: 'hidden', background: 'var(--mantine-color-gray-1)' }} aria-hidden>
      {preview.data ? (
        <iframe
          title={`Thumbnail of ${g.name}`}
          sandbox=""
          tabIndex={-1}
          srcDoc={preview.data.html}
          style={{
            width: 600,
            height: 260 / SCALE,
            border: 0,
            transform: `scale(${SCALE})`,
            transformOrigin: '0 0',
            pointerEvents: 'none',
            background: 'white',
          }}
        />
      ) : (
        <Skeleton height={260} animate={!preview.isError} />
      )}
    </div>
  );
}

interface GalleryDialogProps {
  projectId: string;
  opened: boolean;
  onClose: () => void;
  onUse: (g: GalleryTemplate) => void;
}

/** The starter gallery (`GET /templates/gallery`): a card per template, "Use this template" opens it in the visual editor. */
export function GalleryDialog({ projectId, opened, onClose, onUse }: GalleryDialogProps) {
  const gallery = useGallery(projectId);
  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title="Start from the gallery"
      size="xl"
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      {gallery.isError && <ErrorAlert error={gallery.error} title="The gallery did not load" />}
      <SimpleGrid cols={{ base: 1, sm: 2, md: 3 }} spacing="md" data-testid="gallery">
        {gallery.isPending && [0, 1, 2].map((i) => <Skeleton key={i} height={360} />)}
        {gallery.data?.data.map((g) => (
          <Card key={g.key} withBorder padding="sm" data-testid={`gallery-${g.key}`}>
            <Card.Section>
              <Thumbnail projectId={projectId} g={g} />
            </Card.Section>
            <Stack gap={4} mt="sm">
              <Group justify="space-between" wrap="nowrap" gap="xs">
                <Text fw={600} size="sm">
                  {g.name}
                </Text>
                <Badge size="xs" variant="light" color={g.type === 'MARKETING' ? 'grape' : 'blue'}>
                  {g.type === 'MARKETING' ? 'Marketing' : 'Transactional'}
                </Badge>
              </Group>
              <Text size="xs" c="dimmed" lineClamp={2}>
                {g.description}
              </Text>
              <Button size="compact-sm" mt={4} onClick={() => onUse(g)} aria-label={`Use the ${g.name} template`}>
                Use this template
              </Button>
            </Stack>
          </Card>
        ))}
      </SimpleGrid>
    </Modal>
  );
}
