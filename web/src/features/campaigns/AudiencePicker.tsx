import { NativeSelect, Paper, Stack, Text } from '@mantine/core';
import { ApiError, type FieldError } from '../../api/errors';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useFieldOptions, useSegments } from '../segments/api';
import type { ConditionTree } from '../segments/condition';
import { ConditionBuilder } from '../segments/ConditionBuilder';
import { LiveCount } from '../segments/LiveCount';
import { useAudienceCount, type AudienceBody } from './api';

export interface AudienceValue {
  audienceType: 'ALL' | 'SEGMENT' | 'FILTERED';
  segmentId: string;
  audienceCondition: ConditionTree;
}

/** The `POST /campaigns/audience-count` body of an audience, or null while a segment is still to be chosen. */
export function audienceCountBody(
  value: AudienceValue,
  type: AudienceBody['type'],
  topicId: string | null,
): AudienceBody | null {
  if (value.audienceType === 'SEGMENT' && value.segmentId === '') return null;
  return {
    type,
    audienceType: value.audienceType,
    ...(value.audienceType === 'SEGMENT' ? { segmentId: value.segmentId } : {}),
    ...(value.audienceType === 'FILTERED' ? { audienceCondition: value.audienceCondition } : {}),
    ...(topicId ? { topicId } : {}),
  };
}

/**
 * Who a campaign goes to: every contact, a segment, or a filter built with the segments' condition
 * builder; under it the live number of eligible recipients (`POST /campaigns/audience-count`: the
 * marketing rule skips unsubscribed, suppressed and snoozed contacts and, with `topicId` (the
 * campaign's topic, null for none), contacts outside the topic).
 */
export function AudiencePicker({
  projectId,
  value,
  onChange,
  type,
  topicId,
  errors,
}: {
  projectId: string;
  value: AudienceValue;
  onChange: (v: AudienceValue) => void;
  type: AudienceBody['type'];
  topicId: string | null;
  errors: FieldError[];
}) {
  const segments = useSegments(projectId);
  const options = useFieldOptions(projectId);
  const body = audienceCountBody(value, type, topicId);
  const ready = body !== null;
  const count = useAudienceCount(projectId, body);
  const countErrors = count.error instanceof ApiError ? count.error.fieldErrors : [];
  const all = [...errors, ...countErrors];
  const segmentError = all.find((e) => e.field === 'segmentId')?.message;
  return (
    <Stack gap="sm">
      <NativeSelect
        label="Audience"
        value={value.audienceType}
        onChange={(e) => onChange({ ...value, audienceType: e.currentTarget.value as AudienceValue['audienceType'] })}
        data={[
          { value: 'ALL', label: 'All contacts' },
          { value: 'SEGMENT', label: 'A segment' },
          { value: 'FILTERED', label: 'Contacts matching a filter' },
        ]}
      />
      {value.audienceType === 'SEGMENT' && (
        <NativeSelect
          label="Segment"
          value={value.segmentId}
          error={segmentError}
          onChange={(e) => onChange({ ...value, segmentId: e.currentTarget.value })}
          data={[
            {
              value: '',
              label: segments.data?.length === 0 ? 'No segments yet: create one first' : 'Choose a segment…',
            },
            ...(segments.data ?? []).map((s) => ({
              value: s.id,
              label: `${s.name} (${s.type === 'STATIC' ? 'static' : 'dynamic'})`,
            })),
          ]}
        />
      )}
      {value.audienceType === 'FILTERED' && (
        <Paper p="sm" withBorder>
          {options.data ? (
            <ConditionBuilder
              value={value.audienceCondition}
              onChange={(t) => onChange({ ...value, audienceCondition: t })}
              options={options.data}
              errors={all.filter((e) => e.field.startsWith('audienceCondition'))}
              path="audienceCondition"
            />
          ) : options.isError ? (
            <ErrorAlert error={options.error} />
          ) : (
            <Text size="sm" c="dimmed">
              Loading fields…
            </Text>
          )}
        </Paper>
      )}
      {ready ? (
        <LiveCount query={count} noun={['eligible recipient if sent now', 'eligible recipients if sent now']} />
      ) : (
        <Text size="sm" c="dimmed">
          Choose a segment to see how many receive it.
        </Text>
      )}
    </Stack>
  );
}
