import { Skeleton } from '@mantine/core';
import { lazy, Suspense } from 'react';
import type { EmailEditorProps } from './EmailEditor';

// The block editor and its libraries (dnd-kit, TipTap, ProseMirror) load only when a message in the
// `blocks` format is on screen: the template and campaign screens' first load stays as it was.
const EmailEditor = lazy(() => import('./EmailEditor'));

/** The visual editor, loaded on first use, with a placeholder of its size meanwhile. */
export function BlocksField(props: EmailEditorProps) {
  return (
    <Suspense fallback={<Skeleton height={480} data-testid="email-editor-loading" />}>
      <EmailEditor {...props} />
    </Suspense>
  );
}
