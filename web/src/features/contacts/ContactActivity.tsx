import { Group, Paper, Stack, Text, Timeline, Title } from '@mantine/core';
import { IconActivity, IconMail } from '@tabler/icons-react';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { QueryState } from '../../components/QueryState';
import { StatusBadge, type Tone } from '../../components/StatusBadge';
import { Link } from 'react-router';
import { formatDateTime, formatRelative } from '../../lib/format';
import { useContactEvents, type ContactEvent } from './api';

/** An email sent to the contact, assembled from its `email.*` events. */
interface SentEmail {
  id: string;
  subject: string;
  sentAt: string;
  outcome: { label: string; tone: Tone };
}

// The furthest an email got, from the events recorded about it (later outcomes win).
const OUTCOMES: Array<[string, { label: string; tone: Tone }]> = [
  ['email.bounce', { label: 'Bounced', tone: 'danger' }],
  ['email.complaint', { label: 'Complained', tone: 'danger' }],
  ['email.click', { label: 'Clicked', tone: 'success' }],
  ['email.open', { label: 'Opened', tone: 'success' }],
  ['email.delivery', { label: 'Delivered', tone: 'success' }],
];

/**
 * The emails of the contact: every `email.sent` event names its email (id and subject); the other
 * `email.*` events of the same email tell how far it got. There is no per-contact email list in the
 * API, and these events are recorded for every send, so the timeline is the source.
 */
export function emailsOf(events: ContactEvent[]): SentEmail[] {
  const names = new Map<string, Set<string>>();
  for (const e of events) {
    if (!e.emailId) continue;
    const set = names.get(e.emailId) ?? new Set<string>();
    set.add(e.name);
    names.set(e.emailId, set);
  }
  return events
    .filter((e) => e.name === 'email.sent' && e.emailId)
    .map((e) => {
      const seen = names.get(e.emailId!)!;
      const outcome = OUTCOMES.find(([n]) => seen.has(n))?.[1] ?? { label: 'Sent', tone: 'neutral' as Tone };
      const subject = typeof e.data.subject === 'string' ? e.data.subject : '(no subject)';
      return { id: e.emailId!, subject, sentAt: e.createdAt, outcome };
    });
}

/** Pigeon's own events in words; an app's tracked events keep the name the app gave them. */
const EVENT_WORDS: Record<string, string> = {
  'email.sent': 'Email sent',
  'email.delivery': 'Email delivered',
  'email.open': 'Email opened',
  'email.click': 'Link clicked',
  'email.bounce': 'Email bounced',
  'email.complaint': 'Marked as spam',
  'contact.subscribed': 'Subscribed',
  'contact.unsubscribed': 'Unsubscribed',
  'contact.created': 'Contact created',
  'contact.updated': 'Contact updated',
};

/** The name a person reads for an event. */
export const eventLabel = (name: string): string => EVENT_WORDS[name] ?? name;

const MAX_PAIRS = 8;

/** A value of event data as one short line (objects as compact JSON, cut at 120 characters). */
function valueText(v: unknown): string {
  const t = typeof v === 'string' ? v : JSON.stringify(v);
  return t.length > 120 ? `${t.slice(0, 117)}…` : t;
}

/** An event's data as a small key/value list (at most {@link MAX_PAIRS} keys, then how many more). */
function EventData({ data }: { data: Record<string, unknown> }) {
  const entries = Object.entries(data);
  if (entries.length === 0) return null;
  return (
    <dl data-testid="event-data" style={{ margin: '4px 0 0', display: 'grid', gap: 2 }}>
      {entries.slice(0, MAX_PAIRS).map(([k, v]) => (
        <div key={k} style={{ display: 'flex', gap: 8, minWidth: 0 }}>
          <Text component="dt" size="xs" c="dimmed" style={{ flexShrink: 0 }}>
            {k}
          </Text>
          <Text component="dd" size="xs" m={0} style={{ wordBreak: 'break-word', minWidth: 0 }}>
            {valueText(v)}
          </Text>
        </div>
      ))}
      {entries.length > MAX_PAIRS && (
        <Text size="xs" c="dimmed">
          and {entries.length - MAX_PAIRS} more
        </Text>
      )}
    </dl>
  );
}

/**
 * The contact's emails and its events timeline (`GET /events/contact/:contactId`, latest 100, newest
 * first).
 */
export function ContactActivity({ projectId, contactId }: { projectId: string; contactId: string }) {
  const events = useContactEvents(projectId, contactId);
  return (
    <QueryState query={events} skeletonRows={4}>
      {(page) => {
        const emails = emailsOf(page.data);
        return (
          <Stack gap="lg">
            <Stack gap="xs">
              <Title order={2} size="h4">
                Emails
              </Title>
              {emails.length === 0 ? (
                <EmptyState
                  icon={<IconMail size={28} />}
                  title="No email sent yet"
                  description="Emails sent to this address by /v1/send, campaigns or workflows are listed here."
                />
              ) : (
                <DataTable<SentEmail>
                  caption="Emails sent to this contact"
                  minWidth={520}
                  rows={emails}
                  rowKey={(m) => m.id}
                  rowLabel={(m) => m.subject}
                  columns={[
                    {
                      key: 'subject',
                      header: 'Subject',
                      render: (m) => (
                        <Link to={`/p/${projectId}/emails/${m.id}`} className="pigeon-link" data-testid="email-link">
                          {m.subject}
                        </Link>
                      ),
                    },
                    {
                      key: 'status',
                      header: 'Status',
                      width: 130,
                      render: (m) => <StatusBadge tone={m.outcome.tone}>{m.outcome.label}</StatusBadge>,
                    },
                    {
                      key: 'sent',
                      header: 'Sent',
                      width: 190,
                      render: (m) => <Text size="sm">{formatDateTime(m.sentAt)}</Text>,
                    },
                  ]}
                />
              )}
            </Stack>
            <Stack gap="xs">
              <Title order={2} size="h4">
                Events
              </Title>
              {page.data.length === 0 ? (
                <EmptyState
                  icon={<IconActivity size={28} />}
                  title="No events yet"
                  description="Track what this person does from your app with POST /v1/track and the public key; subscription changes and emails show here too."
                />
              ) : (
                <Paper p="lg">
                  <Timeline bulletSize={14} lineWidth={2} data-testid="timeline">
                    {page.data.map((e) => (
                      <Timeline.Item
                        key={e.id}
                        data-event={e.name}
                        title={
                          <Group gap="sm" justify="space-between" wrap="nowrap">
                            <Text size="sm" fw={600}>
                              {eventLabel(e.name)}
                            </Text>
                            <Text
                              component="time"
                              dateTime={e.createdAt}
                              title={formatDateTime(e.createdAt)}
                              size="xs"
                              c="dimmed"
                              style={{ flexShrink: 0 }}
                            >
                              {formatRelative(e.createdAt)}
                            </Text>
                          </Group>
                        }
                      >
                        <EventData data={e.data} />
                      </Timeline.Item>
                    ))}
                  </Timeline>
                  {page.hasMore && (
                    <Text size="xs" c="dimmed" mt="md">
                      Showing the latest {page.data.length} events.
                    </Text>
                  )}
                </Paper>
              )}
            </Stack>
          </Stack>
        );
      }}
    </QueryState>
  );
}
