import { Autocomplete, Select, Stack, Text, TextInput } from '@mantine/core';
import { ApiError } from '../../api/errors';
import { useDebounced, useSegments } from '../segments/api';
import { useSchedulePreview } from './api';
import type { Draft, DraftErrors } from './stepDraft';
import { TRIGGER_CHOICES, type TriggerType } from './triggerDraft';

interface Props {
  projectId: string;
  /** Event names the project has seen (`GET /workflows/fields`). */
  events: string[];
  draft: Draft;
  set: (patch: Partial<Draft>) => void;
  errors: DraftErrors;
}

/**
 * The trigger step's inputs: what starts the workflow (an event, a contact entering or leaving a
 * tracked segment, a schedule, or only a manual start) and that kind's settings. A schedule shows, as
 * it is typed, the server's sentence for it in the project's time zone and its next run
 * (`GET /workflows/schedule-preview`), or what is wrong with it.
 */
export function TriggerFields({ projectId, events, draft, set, errors }: Props) {
  const segments = useSegments(projectId);
  const cron = useDebounced(draft.triggerType === 'SCHEDULE' ? draft.cron.trim() : '', 400);
  const preview = useSchedulePreview(projectId, cron);
  const list = segments.data ?? [];
  const moving = draft.triggerType === 'SEGMENT_ENTERED' || draft.triggerType === 'SEGMENT_EXITED';
  const segmentChoices = list
    .filter((s) => !moving || s.type === 'DYNAMIC')
    .map((s) => ({
      value: s.id,
      label: moving && !s.trackMembership ? `${s.name} (membership not tracked)` : s.name,
      disabled: moving && !s.trackMembership,
    }));
  const previewError =
    preview.error instanceof ApiError ? (preview.error.fieldErrors[0]?.message ?? preview.error.message) : undefined;

  return (
    <Stack gap="sm">
      <Select
        label="Starts"
        data={TRIGGER_CHOICES}
        value={draft.triggerType}
        allowDeselect={false}
        onChange={(v) => v && set({ triggerType: v as TriggerType, segmentId: '' })}
        error={errors.triggerType}
      />
      {draft.triggerType === 'EVENT' && (
        <Autocomplete
          label="Trigger event"
          description="The tracked event that starts the workflow"
          data={events}
          value={draft.eventName}
          onChange={(v) => set({ eventName: v })}
          error={errors.eventName}
        />
      )}
      {moving && (
        <Select
          label="Segment"
          description="Once per entry (or exit) of a contact. Only segments that track membership record them: turn it on in the segment's settings."
          placeholder={segments.isPending ? 'Loading segments…' : 'Pick a segment'}
          data={segmentChoices}
          value={draft.segmentId || null}
          onChange={(v) => set({ segmentId: v ?? '' })}
          searchable
          error={errors.segmentId}
        />
      )}
      {draft.triggerType === 'SCHEDULE' && (
        <>
          <TextInput
            label="Schedule (cron)"
            description="minute hour day-of-month month day-of-week, in the project's time zone (Settings → General)"
            placeholder="0 9 * * 1"
            value={draft.cron}
            onChange={(e) => set({ cron: e.currentTarget.value })}
            error={errors.cron ?? (cron && cron === draft.cron.trim() ? previewError : undefined)}
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
          />
          {preview.data && !previewError && (
            <Text size="sm" aria-live="polite" data-testid="schedule-preview">
              {preview.data.description}
              {preview.data.nextRunAt ? ` · next run ${new Date(preview.data.nextRunAt).toLocaleString()}` : ''}
            </Text>
          )}
          <Select
            label="Contacts"
            description="Each tick starts the workflow for every contact of this segment"
            data={[{ value: '', label: 'All contacts of the project' }, ...segmentChoices]}
            value={draft.segmentId}
            onChange={(v) => set({ segmentId: v ?? '' })}
            allowDeselect={false}
            searchable
            error={errors.segmentId}
          />
        </>
      )}
      {draft.triggerType === 'MANUAL' && (
        <Text size="sm" c="dimmed">
          Nothing starts it on its own: use "Start for contacts" on the workflow page.
        </Text>
      )}
    </Stack>
  );
}
