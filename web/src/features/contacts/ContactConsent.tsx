import { Group, Stack, Text, Title } from '@mantine/core';
import { IconShieldCheck } from '@tabler/icons-react';
import { CursorPager, useCursorPages } from '../../components/CursorPager';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { QueryState } from '../../components/QueryState';
import { formatDateTime } from '../../lib/format';
import { useTopics } from '../topics/api';
import { useContactConsent, type ConsentEntry } from './api';

const ACTION_WORDS: Record<ConsentEntry['action'], string> = {
  subscribed: 'Subscribed',
  unsubscribed: 'Unsubscribed',
  joined: 'Joined a topic',
  left: 'Left a topic',
  confirmed: 'Confirmed the sign-up',
  snoozed: 'Paused marketing mail',
};

const SOURCE_WORDS: Record<ConsentEntry['source'], string> = {
  api: 'through the API',
  track: 'by a tracked event',
  import: 'by a CSV import',
  form: 'through a sign-up form',
  'preference-centre': 'in the preference centre',
  'one-click': 'with one click',
  complaint: 'after marking an email as spam',
  bounce: 'after an email bounced',
  dashboard: 'in the dashboard',
  workflow: 'by a workflow',
};

/**
 * An entry in words: "Unsubscribed with one click from 203.0.113.9", "Joined Product news in the
 * dashboard". `topicName` names the entry's topic (undefined: a topic deleted since, said generically).
 */
export const consentSentence = (e: Pick<ConsentEntry, 'action' | 'source' | 'ip'>, topicName?: string): string => {
  const action =
    topicName && (e.action === 'joined' || e.action === 'left')
      ? `${e.action === 'joined' ? 'Joined' : 'Left'} ${topicName}`
      : ACTION_WORDS[e.action];
  return `${action} ${SOURCE_WORDS[e.source]}${e.ip ? ` from ${e.ip}` : ''}`;
};

/**
 * The contact's consent log (`GET /contacts/:id/consent`, newest first, paged by cursor): every change
 * of its subscription and topics with where it came from: what shows when and how the
 * person agreed to receive mail.
 */
export function ContactConsent({ projectId, contactId }: { projectId: string; contactId: string }) {
  const pages = useCursorPages(contactId);
  const consent = useContactConsent(projectId, contactId, pages.cursor);
  const topics = useTopics(projectId);
  const sentence = (e: ConsentEntry) =>
    consentSentence(e, e.topicId ? topics.data?.find((t) => t.id === e.topicId)?.name : undefined);
  return (
    <Stack gap="xs">
      <Title order={2} size="h4">
        Consent history
      </Title>
      <QueryState query={consent} skeletonRows={3}>
        {(page) =>
          page.data.length === 0 && pages.pageIndex === 0 ? (
            <EmptyState
              icon={<IconShieldCheck size={28} />}
              title="No consent recorded yet"
              description="Each subscribe and unsubscribe is recorded here with where it came from."
            />
          ) : (
            <Stack gap="sm" data-testid="consent-history">
              <DataTable<ConsentEntry>
                caption="Consent history of this contact, newest first"
                minWidth={480}
                rows={page.data}
                rowKey={(e) => e.id}
                rowLabel={sentence}
                columns={[
                  {
                    key: 'change',
                    header: 'Change',
                    render: (e) => (
                      <Stack gap={0}>
                        <Text size="sm">{sentence(e)}</Text>
                        {e.userAgent && (
                          <Text size="xs" c="dimmed" style={{ wordBreak: 'break-word' }}>
                            {e.userAgent}
                          </Text>
                        )}
                      </Stack>
                    ),
                  },
                  {
                    key: 'when',
                    header: 'When',
                    width: 190,
                    render: (e) => (
                      <Text size="sm" component="time" dateTime={e.createdAt}>
                        {formatDateTime(e.createdAt)}
                      </Text>
                    ),
                  },
                ]}
              />
              {(page.hasMore || pages.pageIndex > 0) && (
                <Group justify="flex-end">
                  <CursorPager
                    pages={pages}
                    next={page.hasMore ? page.cursor : null}
                    waiting={consent.isPlaceholderData}
                  />
                </Group>
              )}
            </Stack>
          )
        }
      </QueryState>
    </Stack>
  );
}
