import { Button } from '@mantine/core';
import { IconLayoutGrid } from '@tabler/icons-react';
import { lazy, Suspense, useState } from 'react';
import { useOpenedOnce } from '../../components/useOpenedOnce';
import type { GalleryTemplate } from './api';

// The dialog (a Modal, cards, thumbnails) loads on its first opening, not with the screens that offer it.
const GalleryDialog = lazy(() => import('./GalleryDialog').then((m) => ({ default: m.GalleryDialog })));

/** "Start from gallery": opens the starter gallery; `onUse` gets the chosen starter. */
export function GalleryButton({
  projectId,
  onUse,
  variant = 'default',
}: {
  projectId: string;
  onUse: (g: GalleryTemplate) => void;
  variant?: 'default' | 'light';
}) {
  const [opened, setOpened] = useState(false);
  const loaded = useOpenedOnce(opened);
  return (
    <>
      <Button variant={variant} leftSection={<IconLayoutGrid size={16} />} onClick={() => setOpened(true)}>
        Start from gallery
      </Button>
      {loaded && (
        <Suspense>
          <GalleryDialog
            projectId={projectId}
            opened={opened}
            onClose={() => setOpened(false)}
            onUse={(g) => {
              setOpened(false);
              onUse(g);
            }}
          />
        </Suspense>
      )}
    </>
  );
}
