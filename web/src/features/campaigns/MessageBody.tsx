import { SimpleGrid, Skeleton, Stack, Text } from '@mantine/core';
import { lazy, Suspense, useRef, type ReactNode } from 'react';
import { PreviewPane, SyntaxErrorNote, syntaxProblemOf, type usePreview } from '../../components/PreviewPane';
import { BlocksField } from '../email-editor/BlocksField';
import { CheckList } from '../email-editor/CheckList';
import type { Format } from '../email-editor/content';
import { FormatChoice } from '../email-editor/FormatChoice';
import type { BlocksDocument, ContentCheck } from '../email-editor/types';
import { BodyField } from './BodyField';

// The code editor for MJML (CodeMirror), loaded when an MJML body is on screen.
const HtmlEditor = lazy(() => import('../templates/HtmlEditor').then((m) => ({ default: m.HtmlEditor })));

interface MessageBodyProps {
  projectId: string;
  isNew: boolean;
  format: Format;
  body: string;
  blocks: BlocksDocument | null;
  /** Remounts the visual editor when its document is replaced from outside (a format chosen, a starter). */
  editorKey: string;
  onBody: (body: string) => void;
  onBlocks: (doc: BlocksDocument) => void;
  onFormat: (f: Format) => void;
  onConvert: ((to: Format) => void) | null;
  error: string | undefined;
  preview: ReturnType<typeof usePreview>;
  contactId: string | null;
  onContactChange: (id: string | null) => void;
  checks: ContentCheck[];
  /** The "Languages" control, shown above the body (which is the selected language's). */
  languages?: ReactNode;
}

/**
 * The composer's message body in its format (the visual editor, MJML in the code editor, HTML in the
 * textarea), with the preview beside it (below the visual editor) and the pre-save check list.
 */
export function MessageBody(p: MessageBodyProps) {
  const select = useRef<((id: string) => void) | null>(null);
  const syntax = syntaxProblemOf(p.preview.query.error);
  const previewPane = (
    <Stack gap={4} data-testid="composer-preview" style={{ minWidth: 0 }}>
      <Text size="sm" fw={500}>
        Preview
      </Text>
      <PreviewPane
        projectId={p.projectId}
        preview={p.preview}
        contactId={p.contactId}
        onContactChange={p.onContactChange}
      />
    </Stack>
  );
  const code =
    p.format === 'html' ? (
      <BodyField label="Body (HTML)" required value={p.body} onChange={p.onBody} error={p.error} />
    ) : (
      <Stack gap={4}>
        <Text size="sm" fw={500} id="mjml-label">
          Body (MJML)
        </Text>
        <Suspense fallback={<Skeleton height={420} />}>
          <HtmlEditor
            key={p.editorKey}
            value={p.body}
            onChange={p.onBody}
            label="Body (MJML)"
            invalid={Boolean(p.error)}
          />
        </Suspense>
        {p.error && (
          <Text size="sm" c="red.9">
            {p.error}
          </Text>
        )}
      </Stack>
    );
  return (
    <Stack gap="md">
      <FormatChoice format={p.format} isNew={p.isNew} onChoose={p.onFormat} onConvert={p.onConvert} />
      {p.languages}
      {p.format === 'blocks' && p.blocks ? (
        <>
          <BlocksField
            key={p.editorKey}
            projectId={p.projectId}
            initial={p.blocks}
            onChange={p.onBlocks}
            checks={p.checks}
            selectRef={select}
          />
          {previewPane}
        </>
      ) : (
        <SimpleGrid cols={{ base: 1, md: 2 }}>
          <Stack gap="xs" style={{ minWidth: 0 }}>
            {code}
            {syntax?.field === 'body' && <SyntaxErrorNote problem={syntax} />}
          </Stack>
          {previewPane}
        </SimpleGrid>
      )}
      <CheckList checks={p.checks} onSelect={(id) => select.current?.(id)} />
    </Stack>
  );
}
