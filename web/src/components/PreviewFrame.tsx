/**
 * The preview pane itself (loaded lazily by PreviewPane.tsx, after the form it sits beside): the
 * sample contact picker, the width and dark-mode switches, the sandboxed frame, the plain-text part.
 */
import { Group, Loader, Paper, SegmentedControl, Select, Stack, Switch, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { ErrorAlert } from './ErrorAlert';
import { syntaxProblemOf, type usePreview } from './preview';
import { useContactSearch } from '../features/templates/api';

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

export interface PreviewPaneProps {
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
export function PreviewFrame({ projectId, preview, contactId, onContactChange }: PreviewPaneProps) {
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
          // Scrolls sideways when the pane is narrower than the mail: focusable, so the keyboard can scroll it.
          <div
            tabIndex={0}
            role="region"
            aria-label="Rendered email"
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
