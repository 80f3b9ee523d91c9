/**
 * The server-rendered preview of a message being written or kept (a template, a campaign): its request
 * hook and answer types, shared by the template editor, the campaign composer and a campaign's page so
 * that all show mail as it is sent. The pane that shows it is PreviewPane.tsx.
 */
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError } from '../api/errors';
import { projectKeys } from '../features/projects/api';
import type { Format } from '../features/email-editor/content';
import type { BlocksDocument, ContentCheck } from '../features/email-editor/types';
import { previewTemplate, type TemplatePreview, type TemplateType } from '../features/templates/api';

/**
 * The preview answer with issue 38's fields (the plain-text part, the MJML, the pre-save checks),
 * mirrored here until the generated types have them.
 */
export type PreviewAnswer = TemplatePreview & { text?: string; mjml?: string | null; checks?: ContentCheck[] };

/** What the preview renders: the message as written, in its format. */
export interface PreviewInput {
  subject: string;
  body: string;
  type: TemplateType;
  contactId: string | null;
  format?: Format;
  /** The `blocks` document (with `format: "blocks"`). */
  blocks?: BlocksDocument | null;
  /** The translation being previewed (its BCP 47 tag): the mail's `lang` and footer words follow it. */
  locale?: string | null;
}

/** Where a template fails to parse, as the server's 422 `invalid_template` names it. */
export interface SyntaxProblem {
  field: 'subject' | 'body';
  line: number;
  column: number;
  reason: string;
}

/** The syntax problem of a preview's failure, or null when it failed for another reason. */
export function syntaxProblemOf(err: unknown): SyntaxProblem | null {
  if (!(err instanceof ApiError) || err.status !== 422) return null;
  const d = err.details as Partial<SyntaxProblem> | undefined;
  if (!d || (d.field !== 'subject' && d.field !== 'body') || typeof d.line !== 'number') return null;
  return { field: d.field, line: d.line, column: d.column ?? 1, reason: d.reason ?? err.message };
}

/**
 * The server's rendering of what is being edited (`POST /templates/preview`), 400 ms after the last
 * keystroke; the previous rendering stays on screen while the next one is on its way.
 */
export function usePreview(projectId: string, input: PreviewInput) {
  // HTML goes as before issue 38 (no format field); the other formats name theirs.
  const { format, blocks, locale, ...rest } = input;
  const v = locale ? { ...rest, locale } : rest;
  const sent = format && format !== 'html' ? { ...v, format, ...(format === 'blocks' ? { blocks, body: '' } : {}) } : v;
  // Debounced as one string: a new object on every render would restart the timer forever.
  const [debounced] = useDebouncedValue(JSON.stringify(sent), 400);
  const query = useQuery({
    queryKey: [...projectKeys.one(projectId), 'template-preview', debounced] as const,
    queryFn: ({ signal }): Promise<PreviewAnswer> =>
      previewTemplate(projectId, JSON.parse(debounced) as typeof v, signal),
    placeholderData: keepPreviousData,
    retry: false,
    staleTime: Infinity,
  });
  // While the text does not parse, the last rendering that worked stays on screen.
  const [lastGood, setLastGood] = useState<PreviewAnswer | undefined>(undefined);
  if (query.data && query.data !== lastGood) setLastGood(query.data);
  // True while what is on screen is not yet the rendering of what is written (the check list may be stale).
  const pending = debounced !== JSON.stringify(sent) || query.isFetching;
  return { query, shown: query.data ?? lastGood, pending };
}
