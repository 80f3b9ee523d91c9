import { StatusBadge, type Tone } from '../../components/StatusBadge';
import { formatRelative } from '../../lib/format';
import type { DeliveryStatus, Endpoint } from './api';

/** A delivery's state in words. */
export const DELIVERY_STATUSES: Record<DeliveryStatus, { label: string; tone: Tone }> = {
  PENDING: { label: 'Retrying', tone: 'warning' },
  SUCCEEDED: { label: 'Delivered', tone: 'success' },
  FAILED: { label: 'Failed', tone: 'danger' },
};

export function DeliveryStatusBadge({ status }: { status: DeliveryStatus }) {
  const s = DELIVERY_STATUSES[status];
  return (
    <StatusBadge tone={s.tone} data-status={status}>
      {s.label}
    </StatusBadge>
  );
}

/** An endpoint's state: disabled (and why), failing since when, or active. */
export function EndpointStateBadge({ endpoint }: { endpoint: Endpoint }) {
  if (!endpoint.enabled)
    return (
      <StatusBadge tone="neutral" data-state="disabled">
        Disabled
      </StatusBadge>
    );
  if (endpoint.failingSince)
    return (
      <StatusBadge tone="danger" data-state="failing">
        Failing since {formatRelative(endpoint.failingSince)}
      </StatusBadge>
    );
  return (
    <StatusBadge tone="success" data-state="active">
      Active
    </StatusBadge>
  );
}

/** The subscribed events in words: "Every event", else the list. */
export const eventsText = (events: string[]) => (events.includes('*') ? 'Every event' : events.join(', '));
