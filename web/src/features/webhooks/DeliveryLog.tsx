import { Button, Code, Group, Modal, Select, Stack, Text, Tooltip, VisuallyHidden } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { IconRefresh, IconSend } from '@tabler/icons-react';
import { useState } from 'react';
import { CursorPager, useCursorPages } from '../../components/CursorPager';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { ErrorAlert } from '../../components/ErrorAlert';
import { ContentSkeleton } from '../../components/Loading';
import { notifyError, notifySuccess } from '../../components/notify';
import { formatDateTime, formatRelative } from '../../lib/format';
import { DELIVERIES_PAGE, retryDelivery, useDeliveries, webhookKeys, type Delivery, type DeliveryStatus } from './api';
import { DELIVERY_STATUSES, DeliveryStatusBadge } from './status';

/** What the endpoint answered, in words: "200 in 35 ms", or why there was no answer. */
export function answerText(d: Delivery): string {
  if (d.responseStatus !== null)
    return `HTTP ${d.responseStatus}${d.latencyMs !== null ? ` in ${d.latencyMs.toLocaleString()} ms` : ''}`;
  if (d.error) return `No answer: ${d.error}`;
  return d.status === 'PENDING' && d.attempts === 0 ? 'Not tried yet' : 'No answer';
}

/** One delivery in full: the answer (cut at 2 KiB by the server), the error, the payload sent. */
function DeliveryDetails({ d, onClose }: { d: Delivery; onClose: () => void }) {
  return (
    <Modal opened onClose={onClose} title={<Text fw={600}>Delivery of {d.type}</Text>} size="xl" centered>
      <Stack gap="sm" data-testid="delivery-details">
        <Group gap="xs">
          <DeliveryStatusBadge status={d.status} />
          <Text size="sm">
            {d.attempts} attempt{d.attempts === 1 ? '' : 's'}
            {d.lastAttemptAt ? `, the last ${formatDateTime(d.lastAttemptAt)}` : ''}
            {d.nextAttemptAt && d.status === 'PENDING' ? `; next try ${formatRelative(d.nextAttemptAt)}` : ''}.
          </Text>
        </Group>
        <Text size="sm">Answer: {answerText(d)}</Text>
        {d.responseBody && (
          <div>
            <Text size="sm" fw={500} mb={4}>
              Body of the answer (first 2 KiB)
            </Text>
            <Code block className="break-all" mah={200} style={{ overflow: 'auto' }}>
              {d.responseBody}
            </Code>
          </div>
        )}
        <div>
          <Text size="sm" fw={500} mb={4}>
            Payload sent (webhook-id {d.id})
            {d.type === 'webhook.test' ? '. A test is not sent again: send a new one.' : ''}
          </Text>
          <Code block mah={300} style={{ overflow: 'auto' }}>
            {JSON.stringify(d.payload, null, 2)}
          </Code>
        </div>
      </Stack>
    </Modal>
  );
}

/**
 * The delivery log of one endpoint (`GET /webhook-endpoints/:id/deliveries`), newest first, a page at
 * a time, filtered by state; each row says what the endpoint answered and can be sent again
 * (`…/retry`, OWNER and ADMIN).
 */
export function DeliveryLog({
  projectId,
  endpointId,
  canRetry,
}: {
  projectId: string;
  endpointId: string;
  canRetry: boolean;
}) {
  const qc = useQueryClient();
  const [status, setStatus] = useState<DeliveryStatus | null>(null);
  // Another state filter starts again at the first page.
  const pages = useCursorPages(status ?? '');
  const pageIndex = pages.pageIndex;
  const log = useDeliveries(projectId, endpointId, status, pages.cursor);
  const [open, setOpen] = useState<Delivery | null>(null);
  const retry = useMutation({
    mutationFn: (d: Delivery) => retryDelivery(projectId, endpointId, d.id),
    onSuccess: () => {
      // The attempt is queued for now: the log asks again every few seconds while it is pending.
      void qc.invalidateQueries({ queryKey: webhookKeys.all(projectId) });
      notifySuccess('Sending it again now: the log shows the answer in a moment.');
    },
    onError: (e) => notifyError(e, 'Could not send it again'),
  });
  const page = log.data;
  return (
    <Stack gap="sm">
      <Group justify="space-between" align="flex-end" wrap="wrap">
        <Text component="h2" fw={600} size="lg">
          Delivery log
        </Text>
        <Select
          label="State"
          placeholder="Any state"
          w={180}
          clearable
          data={(Object.keys(DELIVERY_STATUSES) as DeliveryStatus[]).map((s) => ({
            value: s,
            label: DELIVERY_STATUSES[s].label,
          }))}
          value={status}
          onChange={(v) => {
            setStatus(v as DeliveryStatus | null);
          }}
        />
      </Group>
      {log.isPending ? (
        <ContentSkeleton rows={4} />
      ) : !page ? (
        <ErrorAlert error={log.error} onRetry={() => void log.refetch()} />
      ) : page.data.length === 0 && pageIndex === 0 ? (
        <EmptyState
          icon={<IconSend size={28} />}
          title={status ? 'No delivery in this state' : 'Nothing sent to this endpoint yet'}
          description={
            status
              ? 'Pick another state, or clear the filter.'
              : 'Each event sent here is listed with what the endpoint answered. Send a test to see one now.'
          }
        />
      ) : (
        <>
          <DataTable
            caption="Deliveries to this endpoint, newest first"
            rows={page.data}
            rowKey={(d) => d.id}
            rowLabel={(d) => d.type}
            minWidth={760}
            columns={[
              { key: 'status', header: 'State', width: 110, render: (d) => <DeliveryStatusBadge status={d.status} /> },
              { key: 'type', header: 'Event', render: (d) => <Text size="sm">{d.type}</Text> },
              {
                key: 'answer',
                header: 'Answer',
                render: (d) => (
                  <Stack gap={0}>
                    <Text size="sm" data-testid="delivery-answer">
                      {answerText(d)}
                    </Text>
                    {d.responseBody && (
                      <Text size="xs" c="dimmed" lineClamp={1} style={{ wordBreak: 'break-all' }}>
                        {d.responseBody}
                      </Text>
                    )}
                  </Stack>
                ),
              },
              { key: 'attempts', header: 'Attempts', width: 90, align: 'right', render: (d) => d.attempts },
              {
                key: 'when',
                header: 'When',
                width: 130,
                render: (d) => {
                  const at = d.lastAttemptAt ?? d.createdAt;
                  return (
                    <Tooltip label={formatDateTime(at)}>
                      <Text size="sm" c="dimmed" component="time" dateTime={at}>
                        {formatRelative(at)}
                      </Text>
                    </Tooltip>
                  );
                },
              },
              {
                key: 'actions',
                header: <VisuallyHidden>Actions</VisuallyHidden>,
                width: 190,
                render: (d) => (
                  <Group gap={4} wrap="nowrap">
                    <Button size="compact-xs" variant="default" onClick={() => setOpen(d)}>
                      Details
                    </Button>
                    {canRetry && d.type !== 'webhook.test' && (
                      <Button
                        size="compact-xs"
                        variant="default"
                        leftSection={<IconRefresh size={12} />}
                        loading={retry.isPending && retry.variables?.id === d.id}
                        onClick={() => retry.mutate(d)}
                        aria-label={`Send the ${d.type} delivery again`}
                      >
                        Send again
                      </Button>
                    )}
                  </Group>
                ),
              },
            ]}
          />
          <Group justify="space-between" wrap="wrap">
            <Text size="sm" c="dimmed">
              {pageIndex === 0 && !page.hasMore
                ? `${page.data.length} deliver${page.data.length === 1 ? 'y' : 'ies'}`
                : `Deliveries ${pageIndex * DELIVERIES_PAGE + 1}–${pageIndex * DELIVERIES_PAGE + page.data.length}`}
            </Text>
            <CursorPager pages={pages} next={page.hasMore ? page.cursor : null} waiting={log.isPlaceholderData} />
          </Group>
        </>
      )}
      {open && <DeliveryDetails d={open} onClose={() => setOpen(null)} />}
    </Stack>
  );
}
