import { Alert, Anchor, Code, Group, Paper, SimpleGrid, Stack, Text, Timeline, Title } from '@mantine/core';
import { IconAlertTriangle, IconArrowLeft, IconInfoCircle } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import { ApiError } from '../../api/errors';
import { NotFound } from '../../components/NotFound';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';
import { formatDateTime } from '../../lib/format';
import { useProject } from '../projects/ProjectContext';
import { useEmail, type EmailDetail } from './api';
import { EmailStatusBadge, SourceText } from './status';

/** The `email.*` events in words. */
const EVENT_LABELS: Record<string, string> = {
  'email.sent': 'Sent',
  'email.delivery': 'Delivered',
  'email.open': 'Opened',
  'email.click': 'Clicked',
  'email.bounce': 'Bounced',
  'email.complaint': 'Marked as spam',
};

const address = (a: { email: string; name: string | null }) => (a.name ? `${a.name} <${a.email}>` : a.email);

/** One labelled value of the details grid. */
function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Stack gap={2}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      {typeof children === 'string' ? (
        <Text size="sm" style={{ wordBreak: 'break-word' }}>
          {children}
        </Text>
      ) : (
        children
      )}
    </Stack>
  );
}

/** The times the row records, those that are set, in the order they happen. */
function times(e: EmailDetail): Array<[string, string]> {
  const all: Array<[string, string | null]> = [
    ['Queued', e.createdAt],
    ['Sent', e.sentAt],
    ['Delivered', e.deliveredAt],
    ['Opened', e.openedAt],
    ['Clicked', e.clickedAt],
    ['Bounced', e.bouncedAt],
    ['Marked as spam', e.complainedAt],
  ];
  return all.filter((t): t is [string, string] => t[1] !== null);
}

/** Why the email failed, bounced or was not sent, or why it is being retried. */
function Problem({ e }: { e: EmailDetail }) {
  if (!e.error) return null;
  const final = ['FAILED', 'BOUNCED', 'SUPPRESSED', 'COMPLAINED'].includes(e.status);
  const title =
    e.status === 'BOUNCED'
      ? 'The receiving server refused it'
      : e.status === 'SUPPRESSED'
        ? 'Not sent to this recipient'
        : final
          ? 'It could not be sent'
          : 'The last attempt failed; it will be tried again';
  return (
    <Alert
      color={final ? 'red' : 'yellow'}
      variant="light"
      icon={<IconAlertTriangle size={18} />}
      title={title}
      data-testid="email-error"
    >
      <Text size="sm" style={{ wordBreak: 'break-word' }}>
        {e.error}
      </Text>
    </Alert>
  );
}

/** Said of mail whose sender no verified domain covers: where it went, and what sending for real takes. */
function UnverifiedSender({ e, projectId }: { e: EmailDetail; projectId: string }) {
  if (e.senderVerified || e.status === 'FAILED') return null;
  return (
    <Alert
      color="blue"
      variant="light"
      icon={<IconInfoCircle size={18} />}
      title="Kept on this machine"
      data-testid="unverified-sender"
    >
      <Text size="sm">
        No verified domain of this project covers {e.from.email}, so this email goes to the server's local outbox only,
        without a DKIM signature: nobody receives it. To deliver mail,{' '}
        <Anchor component={Link} to={`/p/${projectId}/domains`} size="sm">
          verify your domain
        </Anchor>{' '}
        and give the server an SMTP relay or Amazon SES.
      </Text>
    </Alert>
  );
}

/** The subject and body as the recipient gets them, the HTML in a frame that runs nothing. */
function Message({ e }: { e: EmailDetail }) {
  if (!e.rendered) {
    return (
      <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} title="This email cannot be shown">
        <Text size="sm">{e.renderError ?? 'Its template does not render.'}</Text>
      </Alert>
    );
  }
  return (
    <Paper p={0} style={{ overflow: 'hidden' }}>
      <Group px="md" py="xs" bg="var(--mantine-color-default-hover)">
        <Text size="sm" style={{ wordBreak: 'break-word' }} data-testid="email-subject">
          <Text span fw={600} size="sm">
            Subject:{' '}
          </Text>
          {e.rendered.subject}
        </Text>
      </Group>
      {/* sandbox="": no scripts, forms, popups or same-origin access, so the mail cannot touch the dashboard. */}
      <iframe
        title="The email as the recipient sees it"
        sandbox=""
        srcDoc={e.rendered.html}
        data-testid="email-frame"
        style={{ width: '100%', height: 480, border: 0, display: 'block', background: 'white' }}
      />
    </Paper>
  );
}

/**
 * `/p/:projectId/emails/:emailId`: one email (`GET /emails/:id`): its status and why it failed, who
 * sent it to whom and through what, the times and events recorded about it, and the mail itself.
 * Another project's email, or an unknown one, is "not found".
 */
export function EmailPage() {
  const { project } = useProject();
  const { emailId = '' } = useParams();
  const email = useEmail(project.id, emailId);
  const back = (
    <Anchor component={Link} to=".." relative="path" size="sm">
      <Group gap={4}>
        <IconArrowLeft size={14} />
        All emails
      </Group>
    </Anchor>
  );

  if (email.isError && email.error instanceof ApiError && email.error.status === 404) {
    return (
      <NotFound
        title="Email not found"
        description="No email of this project has this address. It may belong to another project, or the project's data was reset."
      />
    );
  }
  return (
    <QueryState query={email} skeletonRows={6}>
      {(e) => (
        <>
          <Stack gap={4} mb="xs">
            {back}
          </Stack>
          <PageHeader
            title={e.rendered?.subject || e.subject || '(no subject)'}
            description={`To ${address(e.to)}`}
            actions={<EmailStatusBadge status={e.status} />}
          />
          <Stack gap="lg">
            <Problem e={e} />
            <UnverifiedSender e={e} projectId={project.id} />
            <Paper p="lg">
              <SimpleGrid cols={{ base: 1, xs: 2, md: 3 }} spacing="lg">
                <Fact label="From">{address(e.from)}</Fact>
                <Fact label="To">
                  {e.contactId ? (
                    <Anchor
                      component={Link}
                      to={`/p/${project.id}/contacts/${e.contactId}`}
                      size="sm"
                      style={{ wordBreak: 'break-all' }}
                    >
                      {address(e.to)}
                    </Anchor>
                  ) : (
                    address(e.to)
                  )}
                </Fact>
                <Fact label="Sent by">
                  <SourceText projectId={project.id} source={e.source} />
                </Fact>
                {times(e).map(([label, at]) => (
                  <Fact key={label} label={label}>
                    <Text size="sm" component="time" dateTime={at}>
                      {formatDateTime(at)}
                    </Text>
                  </Fact>
                ))}
                {e.replyTo && <Fact label="Reply to">{e.replyTo}</Fact>}
                {e.attempts > 1 && <Fact label="Attempts">{String(e.attempts)}</Fact>}
                {e.transport && (
                  <Fact label="Sent through">{e.transport.name ?? 'A transport that was deleted since'}</Fact>
                )}
                {e.messageId && (
                  <Fact label="Message-ID">
                    <Code style={{ wordBreak: 'break-all' }}>{e.messageId}</Code>
                  </Fact>
                )}
                {e.attachments.length > 0 && (
                  <Fact label="Attachments">{e.attachments.map((a) => a.filename).join(', ')}</Fact>
                )}
              </SimpleGrid>
            </Paper>
            <Stack gap="xs">
              <Title order={2} size="h4">
                The email
              </Title>
              <Message e={e} />
            </Stack>
            <Stack gap="xs">
              <Title order={2} size="h4">
                What happened
              </Title>
              {e.events.length === 0 ? (
                <Text size="sm" c="dimmed">
                  Nothing recorded yet: the email is{' '}
                  {e.status === 'PENDING' || e.status === 'SENDING' ? 'on its way' : 'not sent'}.
                </Text>
              ) : (
                <Paper p="lg">
                  <Timeline bulletSize={12} lineWidth={2} active={e.events.length - 1} data-testid="email-events">
                    {e.events.map((ev) => (
                      <Timeline.Item key={ev.id} title={EVENT_LABELS[ev.name] ?? ev.name}>
                        <Text size="xs" c="dimmed" component="time" dateTime={ev.createdAt}>
                          {formatDateTime(ev.createdAt)}
                        </Text>
                        {typeof ev.data.url === 'string' && (
                          <Text size="xs" style={{ wordBreak: 'break-all' }}>
                            {ev.data.url}
                          </Text>
                        )}
                      </Timeline.Item>
                    ))}
                  </Timeline>
                </Paper>
              )}
            </Stack>
          </Stack>
        </>
      )}
    </QueryState>
  );
}
