import { StatusBadge, type Tone } from '../../components/StatusBadge';
import type { CampaignStatus } from './api';

const TONES: Record<CampaignStatus, Tone> = {
  DRAFT: 'neutral',
  SCHEDULED: 'warning',
  SENDING: 'warning',
  SENT: 'success',
  CANCELLED: 'danger',
};
export const STATUS_LABELS: Record<CampaignStatus, string> = {
  DRAFT: 'Draft',
  SCHEDULED: 'Scheduled',
  SENDING: 'Sending',
  SENT: 'Sent',
  CANCELLED: 'Cancelled',
};

/** A campaign's status as a coloured badge. */
export function CampaignStatusBadge({ status }: { status: CampaignStatus }) {
  return (
    <StatusBadge tone={TONES[status]} data-status={status}>
      {STATUS_LABELS[status]}
    </StatusBadge>
  );
}

/**
 * A date in the person's zone, with the zone's name so a schedule is never ambiguous (spelled out field
 * by field: `dateStyle` may not be combined with `timeZoneName`).
 */
export const inLocalZone = (iso: string) =>
  new Date(iso).toLocaleString(undefined, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZoneName: 'short',
  });
