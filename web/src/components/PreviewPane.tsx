/**
 * The server-rendered preview of a message being written or kept (a template, a campaign): shared by
 * the template editor, the campaign composer and a campaign's page so that all show mail as it is sent.
 */
import { Alert, Group, Loader, Paper, SegmentedControl, Select, Stack, Switch, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useState } from 'react';
import { ApiError } from '../api/errors';
import { ErrorAlert } from './ErrorAlert';
import { projectKeys } from '../features/projects/api';
import type { Format } from '../features/email-editor/content';
import type { BlocksDocument, ContentCheck } from '../features/email-editor/types';
import { previewTemplate, useContactSearch, type TemplatePreview, type TemplateType } from '../features/templates/api';

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
  const { format, blocks, ...v } = input;
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
  return { query, shown: query.data ?? lastGood };
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

/**
 * Picks the project contact whose data fills the preview's variables: searches contacts by email
 * (`GET /contacts?search`) as the person types.
 */
export function ContactPicker({
  projectId,
  value,
  onChange,
}: {
  projectId: string;
  value: string | null;
  onChange: (id: string | null) => void;
}) {
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search.trim(), 250);
  const contacts = useContactSearch(projectId, debounced);
  const data = (contacts.data?.data ?? []).map((c) => ({ value: c.id, label: c.email }));
  return (
    <Select
      label="Sample contact"
      description="Its data fills the variables of the preview."
      placeholder="Search contacts by email"
      searchable
      clearable
      data={data}
      value={value}
      onChange={onChange}
      searchValue={search}
      onSearchChange={setSearch}
      // The server already searched: show its answer as is.
      filter={({ options }) => options}
      nothingFoundMessage={contacts.isFetching ? 'Searching…' : 'No contact matches'}
      rightSection={contacts.isFetching ? <Loader size={14} /> : undefined}
      data-testid="contact-picker"
    />
  );
}

interface PreviewPaneProps {
  projectId: string;
  preview: ReturnType<typeof usePreview>;
  contactId: string | null;
  onContactChange: (id: string | null) => void;
}

/** Dark mode as many mail apps do it (Gmail's and Outlook's apps invert light mail), pictures kept as they are. */
const DARK_CSS =
  '<style>:root{color-scheme:dark}html{filter:invert(1) hue-rotate(180deg);background:#fff}img,picture,video{filter:invert(1) hue-rotate(180deg)}</style>';

/** The mail's HTML with the dark-mode simulation's style put first in its head (after the doctype, keeping standards mode). */
function darkened(html: string): string {
  if (/<head[^>]*>/i.test(html)) return html.replace(/<head([^>]*)>/i, `<head$1>${DARK_CSS}`);
  return /<!doctype[^>]*>/i.test(html) ? html.replace(/(<!doctype[^>]*>)/i, `$1${DARK_CSS}`) : DARK_CSS + html;
}

type View = 'desktop' | 'phone' | 'text';

/**
 * The rendered email: its subject, and its HTML in a sandboxed frame (`sandbox=""`: no scripts, no
 * forms, no same-origin access, so a template cannot touch the dashboard), at a desktop width (the
 * pane's, at least 600 px) or a phone's (375 px), optionally in a dark-mode simulation, or its
 * plain-text part.
 */
export function PreviewPane({ projectId, preview, contactId, onContactChange }: PreviewPaneProps) {
  const { query, shown } = preview;
  const problem = syntaxProblemOf(query.error);
  const [view, setView] = useState<View>('desktop');
  const [dark, setDark] = useState(false);
  const html = shown?.html ?? '';
  return (
    <Stack gap="sm">
      <ContactPicker projectId={projectId} value={contactId} onChange={onContactChange} />
      <Group justify="space-between" gap="xs">
        <SegmentedControl
          size="xs"
          value={view}
          onChange={(v) => setView(v as View)}
          aria-label="Preview as"
          data={[
            { value: 'desktop', label: 'Desktop' },
            { value: 'phone', label: 'Phone' },
            { value: 'text', label: 'Plain text' },
          ]}
        />
        <Switch
          size="sm"
          label="Dark mode (simulated)"
          checked={dark}
          disabled={view === 'text'}
          onChange={(e) => setDark(e.currentTarget.checked)}
        />
      </Group>
      <Paper p={0} style={{ overflow: 'hidden' }}>
        <Group px="md" py="xs" gap="xs" wrap="nowrap" bg="var(--mantine-color-default-hover)" justify="space-between">
          <Text size="sm" truncate="end" data-testid="preview-subject">
            <Text span fw={600} size="sm">
              Subject:{' '}
            </Text>
            {shown?.subject ?? ''}
          </Text>
          {query.isFetching && <Loader size={14} role="status" aria-label="Rendering" />}
        </Group>
        {view === 'text' ? (
          <Text
            component="pre"
            size="sm"
            p="md"
            m={0}
            data-testid="preview-text"
            style={{ whiteSpace: 'pre-wrap', fontFamily: 'var(--mantine-font-family-monospace)', minHeight: 200 }}
          >
            {shown?.text ?? 'The plain-text part shows here once the preview has rendered.'}
          </Text>
        ) : (
          <div
            style={{
              overflowX: 'auto',
              background: dark ? '#121212' : 'var(--mantine-color-default-hover)',
              padding: view === 'phone' ? 12 : 0,
            }}
          >
            <iframe
              title="Preview of the email"
              sandbox=""
              srcDoc={dark ? darkened(html) : html}
              data-testid="preview-frame"
              data-view={view}
              data-dark={dark || undefined}
              style={{
                width: view === 'phone' ? 375 : '100%',
                minWidth: view === 'phone' ? 375 : 600,
                height: view === 'phone' ? 640 : 460,
                border: 0,
                display: 'block',
                margin: '0 auto',
                background: 'white',
              }}
            />
          </div>
        )}
      </Paper>
      {dark && view !== 'text' && (
        <Text size="xs" c="dimmed">
          A simulation: mail apps darken mail in their own ways; this one inverts the colours as several do.
        </Text>
      )}
      {query.isError && !problem && <ErrorAlert error={query.error} title="The preview failed" />}
      {problem && shown && (
        <Text size="sm" c="dimmed">
          The preview shows the last version that rendered.
        </Text>
      )}
    </Stack>
  );
}
