import { Select } from '@mantine/core';
import { useTopics } from './api';

/** The sentence under a disabled picker: why mail of `type` ignores topics. */
const IGNORED: Record<string, string> = {
  TRANSACTIONAL: 'Transactional mail ignores topics: it goes to everyone it is sent to.',
  HEADLESS: 'Headless mail ignores topics: it goes to everyone it is sent to.',
};

/**
 * The "Topic" picker of the campaign composer, the template editor and the workflow SEND_EMAIL step
 * (`GET /topics`): optional and clearable; with no topic a MARKETING mail goes to every subscribed
 * contact, with one only to the topic's members (the server's marketing rule). For any other `type` the
 * picker is disabled, empty, and says why: transactional and headless mail ignore topics.
 * `value`/`onChange` hold the topic id, '' for none. `placeholder` replaces the "no topic" wording
 * where no topic means something else (a step falls back to its template's topic).
 */
export function TopicSelect({
  projectId,
  type,
  value,
  onChange,
  error,
  placeholder = 'No topic: everyone subscribed',
}: {
  projectId: string;
  type: string;
  value: string;
  onChange: (topicId: string) => void;
  error?: string;
  placeholder?: string;
}) {
  const topics = useTopics(projectId);
  const marketing = type === 'MARKETING';
  const list = topics.data ?? [];
  return (
    <Select
      label="Topic"
      description={
        marketing
          ? list.length || topics.isPending
            ? "Only the topic's members receive it (and never an unsubscribed contact)."
            : 'No topics yet: create them under Topics to send to part of your list.'
          : (IGNORED[type] ?? IGNORED.TRANSACTIONAL)
      }
      placeholder={marketing ? placeholder : 'No topic'}
      data={list.map((t) => ({ value: t.id, label: t.name }))}
      value={marketing && value ? value : null}
      onChange={(v) => onChange(v ?? '')}
      disabled={!marketing}
      clearable
      // Mantine hides its clear button from assistive technology; named and shown, a screen reader can use it too.
      clearButtonProps={{ 'aria-label': 'Clear the topic', 'aria-hidden': false }}
      nothingFoundMessage="No topics yet"
      error={error ?? (topics.isError ? 'The topics could not be loaded.' : undefined)}
      data-testid="topic-select"
    />
  );
}
