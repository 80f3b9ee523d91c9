import { Checkbox, Group, NumberInput, Radio, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import { api, inProject, unwrap } from '../../api/client';
import { ContentSkeleton } from '../../components/Loading';
import { useDebounced } from '../segments/api';
import { campaignKeys } from './api';
import { DAYS, DAY_LABELS, previewQuery, type DeliveryDraft, type DeliveryMode } from './delivery';

const SendCurve = lazy(() => import('./SendCurve').then((m) => ({ default: m.SendCurve })));

interface Props {
  projectId: string;
  /** The saved campaign, whose audience the server draws the curve from; none for a new one. */
  campaignId?: string;
  value: DeliveryDraft;
  onChange: (d: DeliveryDraft, field: string) => void;
  /** Recipients counted now, for the curve of a campaign not saved yet. */
  count: number | null;
  err: (field: string) => string | undefined;
}

/** Hourly buckets of a send that is not saved yet: at once, or evenly over the hours (no window, no zones). */
function localCurve(d: DeliveryDraft, count: number): Array<{ at: string; count: number }> | null {
  if (d.windowOn || d.mode === 'local-time') return null;
  const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000;
  if (d.mode === 'now') return [{ at: new Date(hour).toISOString(), count }];
  const h = Number(d.spreadHours);
  if (!Number.isInteger(h) || h < 1 || h > 72) return null;
  const buckets = Array.from({ length: h }, (_, i) => ({ at: new Date(hour + i * 3_600_000).toISOString(), count: 0 }));
  for (let i = 0; i < count; i++) buckets[Math.floor((i / count) * h)].count++;
  return buckets;
}

/**
 * The composer's delivery: send now, spread over N hours, or at a local time in each contact's zone,
 * with an optional window (days, from, to), and the expected send curve under it.
 */
export function DeliveryFields({ projectId, campaignId, value: d, onChange, count, err }: Props) {
  const set = (patch: Partial<DeliveryDraft>, field: string) => onChange({ ...d, ...patch }, field);
  // Debounced as text: a new object each render would restart the timer for ever.
  const q = JSON.parse(useDebounced(JSON.stringify(previewQuery(d)), 300)) as Record<string, string | number>;
  const preview = useQuery({
    queryKey: [...campaignKeys.all(projectId), 'delivery-preview', campaignId, q],
    enabled: Boolean(campaignId),
    placeholderData: keepPreviousData,
    retry: false,
    queryFn: () =>
      unwrap(
        api.GET('/campaigns/{id}/delivery-preview', {
          params: { path: { id: campaignId! }, query: q as never },
          headers: inProject(projectId),
        }),
      ),
  });
  const buckets = campaignId
    ? preview.isError
      ? null
      : (preview.data?.buckets ?? null)
    : count === null
      ? null
      : localCurve(d, count);
  return (
    <Stack gap="sm">
      <Title order={2} size="h4">
        Delivery
      </Title>
      <Radio.Group
        label="When the mail goes out"
        value={d.mode}
        onChange={(m) => set({ mode: m as DeliveryMode }, 'delivery.mode')}
        error={err('delivery.mode')}
      >
        <Group mt={6} gap="lg">
          <Radio value="now" label="Send now" />
          <Radio value="spread" label="Spread over hours" />
          <Radio value="local-time" label="At a local time" />
        </Group>
      </Radio.Group>
      {d.mode === 'spread' && (
        <NumberInput
          label="Spread over (hours)"
          description="The mails are handed out evenly over this many hours, from 1 to 72."
          min={1}
          max={72}
          maw={220}
          value={d.spreadHours}
          onChange={(v) => set({ spreadHours: v }, 'delivery.spreadHours')}
          error={err('delivery.spreadHours')}
        />
      )}
      {d.mode === 'local-time' && (
        <TextInput
          type="time"
          label="Local time"
          description="Each contact gets the mail at this time in their own time zone (the project's zone when unknown)."
          maw={220}
          value={d.localTime}
          onChange={(e) => set({ localTime: e.currentTarget.value }, 'delivery.localTime')}
          error={err('delivery.localTime')}
        />
      )}
      <Switch
        label="Only send inside a window"
        description={
          d.mode === 'local-time'
            ? "Only on the days you choose, in each contact's time zone."
            : "Mail due outside the window waits for it to open (in the project's time zone)."
        }
        checked={d.windowOn}
        onChange={(e) => set({ windowOn: e.currentTarget.checked }, 'delivery.window')}
      />
      {d.windowOn && (
        <Stack gap="xs" data-testid="delivery-window">
          <Group gap="sm" align="flex-start">
            <TextInput
              type="time"
              label="From"
              w={140}
              value={d.from}
              onChange={(e) => set({ from: e.currentTarget.value }, 'delivery.window.from')}
              error={err('delivery.window.from')}
            />
            <TextInput
              type="time"
              label="To"
              w={140}
              value={d.to}
              onChange={(e) => set({ to: e.currentTarget.value }, 'delivery.window.to')}
              error={err('delivery.window.to')}
            />
          </Group>
          <Checkbox.Group
            label="Days"
            value={d.days}
            onChange={(days) => set({ days: DAYS.filter((x) => days.includes(x)) }, 'delivery.window.days')}
            error={err('delivery.window.days')}
          >
            <Group mt={6} gap="sm">
              {DAYS.map((day) => (
                <Checkbox key={day} value={day} label={DAY_LABELS[day]} />
              ))}
            </Group>
          </Checkbox.Group>
        </Stack>
      )}
      <div data-testid="send-curve-area">
        {buckets && buckets.length > 0 ? (
          <Suspense fallback={<ContentSkeleton rows={3} />}>
            <SendCurve buckets={buckets} />
          </Suspense>
        ) : (
          <Text size="sm" c="dimmed" data-testid="send-curve-note">
            {campaignId && preview.isError
              ? 'The curve cannot be drawn for these settings yet: check the fields above.'
              : !campaignId && (d.mode === 'local-time' || d.windowOn)
                ? "Save the draft to see the expected send curve from your contacts' time zones."
                : 'The expected send curve appears once the audience is counted.'}
          </Text>
        )}
      </div>
    </Stack>
  );
}
