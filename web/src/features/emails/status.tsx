import { Anchor, Text } from '@mantine/core';
import { Link } from 'react-router';
import { StatusBadge, type Tone } from '../../components/StatusBadge';
import type { EmailSource, EmailStatus, EmailSummary } from './api';

/** Each status in words, with its tone; in the order a mail meets them. */
export const STATUSES: Record<EmailStatus, { label: string; tone: Tone }> = {
  PENDING: { label: 'Queued', tone: 'warning' },
  SENDING: { label: 'Sending', tone: 'warning' },
  SENT: { label: 'Sent', tone: 'success' },
  DELIVERED: { label: 'Delivered', tone: 'success' },
  OPENED: { label: 'Opened', tone: 'success' },
  CLICKED: { label: 'Clicked', tone: 'success' },
  BOUNCED: { label: 'Bounced', tone: 'danger' },
  COMPLAINED: { label: 'Marked as spam', tone: 'danger' },
  FAILED: { label: 'Failed', tone: 'danger' },
  SUPPRESSED: { label: 'Suppressed', tone: 'neutral' },
};

/** An email's status as a coloured badge. */
export function EmailStatusBadge({ status }: { status: EmailStatus }) {
  return (
    <StatusBadge tone={STATUSES[status].tone} data-status={status}>
      {STATUSES[status].label}
    </StatusBadge>
  );
}

/** What sent an email, in words. */
export const SOURCES: Record<EmailSource, string> = {
  api: 'API',
  campaign: 'Campaign',
  workflow: 'Workflow',
  test: 'Test send',
};

/** What sent an email: the kind, and the campaign or workflow it belongs to as a link (when it still exists). */
export function SourceText({ projectId, source }: { projectId: string; source: EmailSummary['source'] }) {
  const base = `/p/${projectId}`;
  if (source.campaign) {
    return source.campaign.name ? (
      <Anchor component={Link} to={`${base}/campaigns/${source.campaign.id}`} size="sm">
        Campaign {source.campaign.name}
      </Anchor>
    ) : (
      <Text size="sm">Campaign (deleted)</Text>
    );
  }
  if (source.workflow) {
    return source.workflow.id && source.workflow.name ? (
      <Anchor component={Link} to={`${base}/workflows/${source.workflow.id}`} size="sm">
        Workflow {source.workflow.name}
      </Anchor>
    ) : (
      <Text size="sm">Workflow (deleted)</Text>
    );
  }
  return (
    <Text size="sm">
      {SOURCES[source.type]}
      {source.template?.name ? ` · ${source.template.name}` : ''}
    </Text>
  );
}
