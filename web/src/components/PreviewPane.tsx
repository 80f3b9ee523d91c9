/**
 * The server-rendered preview of a message (see preview.ts): the pane, loaded after the screen that
 * shows it (the contact picker's combobox and the frame are not needed for the first paint), and the
 * note of a syntax error.
 */
import { Alert, Skeleton, Text } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { lazy, Suspense } from 'react';
import type { PreviewPaneProps } from './PreviewFrame';
import type { SyntaxProblem } from './preview';

export { syntaxProblemOf, usePreview, type PreviewAnswer, type PreviewInput, type SyntaxProblem } from './preview';

const PreviewFrame = lazy(() => import('./PreviewFrame').then((m) => ({ default: m.PreviewFrame })));

/**
 * The rendered email (PreviewFrame.tsx): subject, HTML in a sandboxed frame at desktop or phone width,
 * a dark-mode simulation, the plain-text part, and the sample contact whose data fills it.
 */
export function PreviewPane(props: PreviewPaneProps) {
  return (
    <Suspense fallback={<Skeleton height={560} data-testid="preview-loading" />}>
      <PreviewFrame {...props} />
    </Suspense>
  );
}

/** The line/column of a template syntax error, shown under the field it is in. */
export function SyntaxErrorNote({ problem }: { problem: SyntaxProblem }) {
  return (
    <Alert
      color="red"
      variant="light"
      icon={<IconAlertTriangle size={16} />}
      p="xs"
      role="alert"
      data-testid="syntax-error"
    >
      <Text size="sm">
        <b>
          Line {problem.line}, column {problem.column}
        </b>{' '}
        of the {problem.field}: {problem.reason}
      </Text>
    </Alert>
  );
}
