/**
 * The server-rendered preview of a message being written or kept (a template, a campaign): shared by
 * the template editor, the campaign composer and a campaign's page so that all show mail as it is sent.
 */
import { Alert, Group, Loader, Paper, Select, Stack, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useState } from 'react';
import { ApiError } from '../api/errors';
import { ErrorAlert } from './ErrorAlert';
import { projectKeys } from '../features/projects/api';
import { previewTemplate, useContactSearch, type TemplatePreview, type TemplateType } from '../features/templates/api';

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
export function usePreview(
  projectId: string,
  v: { subject: string; body: string; type: TemplateType; contactId: string | null },
) {
  // Debounced as one string: a new object on every render would restart the timer forever.
  const [debounced] = useDebouncedValue(JSON.stringify(v), 400);
  const query = useQuery({
    queryKey: [...projectKeys.one(projectId), 'template-preview', debounced] as const,
    queryFn: ({ signal }) => previewTemplate(projectId, JSON.parse(debounced) as typeof v, signal),
    placeholderData: keepPreviousData,
    retry: false,
    staleTime: Infinity,
  });
  // While the text does not parse, the last rendering that worked stays on screen.
  const [lastGood, setLastGood] = useState<TemplatePreview | undefined>(undefined);
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

/**
 * The rendered email: its subject, and its HTML in a sandboxed frame (`sandbox=""`: no scripts, no
 * forms, no same-origin access, so a template cannot touch the dashboard).
 */
export function PreviewPane({ projectId, preview, contactId, onContactChange }: PreviewPaneProps) {
  const { query, shown } = preview;
  const problem = syntaxProblemOf(query.error);
  return (
    <Stack gap="sm">
      <ContactPicker projectId={projectId} value={contactId} onChange={onContactChange} />
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
        <iframe
          title="Preview of the email"
          sandbox=""
          srcDoc={shown?.html ?? ''}
          data-testid="preview-frame"
          style={{ width: '100%', height: 460, border: 0, display: 'block', background: 'white' }}
        />
      </Paper>
      {query.isError && !problem && <ErrorAlert error={query.error} title="The preview failed" />}
      {problem && shown && (
        <Text size="sm" c="dimmed">
          The preview shows the last version that rendered.
        </Text>
      )}
    </Stack>
  );
}
