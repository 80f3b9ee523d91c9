import { Button, Group, NativeSelect, Paper, Stack, Switch, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { IconDeviceFloppy, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { ApiError } from '../../api/errors';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ErrorAlert } from '../../components/ErrorAlert';
import { notifySuccess } from '../../components/notify';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';
import { useProject } from '../projects/ProjectContext';
import {
  createSegment,
  deleteSegment,
  segmentKeys,
  updateSegment,
  useConditionCount,
  useFieldOptions,
  useSegment,
  type Segment,
} from './api';
import { emptyTree, type ConditionTree } from './condition';
import { ConditionBuilder } from './ConditionBuilder';
import { LiveCount } from './LiveCount';
import { SegmentMembersPanel } from './SegmentMembers';

/** `/p/:projectId/segments/new` and `/p/:projectId/segments/:segmentId`: create or edit one segment. */
export function SegmentPage() {
  const { project } = useProject();
  const { segmentId } = useParams();
  const query = useSegment(project.id, segmentId);
  if (!segmentId) return <SegmentEditor projectId={project.id} />;
  return (
    <QueryState query={query}>{(s) => <SegmentEditor key={s.id} projectId={project.id} segment={s} />}</QueryState>
  );
}

function SegmentEditor({ projectId, segment }: { projectId: string; segment?: Segment }) {
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [name, setName] = useState(segment?.name ?? '');
  const [description, setDescription] = useState(segment?.description ?? '');
  const [type, setType] = useState<'DYNAMIC' | 'STATIC'>(segment?.type ?? 'DYNAMIC');
  const [tracked, setTracked] = useState(segment?.trackMembership ?? false);
  const [condition, setCondition] = useState<ConditionTree>(segment?.condition ?? emptyTree());
  const [deleting, del] = useDisclosure();
  const options = useFieldOptions(projectId, segment?.id);
  const dynamic = type === 'DYNAMIC';
  const count = useConditionCount(projectId, dynamic ? condition : null);
  const base = `/p/${projectId}/segments`;

  const save = useMutation({
    mutationFn: () => {
      const body = {
        name: name.trim(),
        description: description || null,
        trackMembership: tracked,
        ...(dynamic ? { condition } : {}),
      };
      return segment ? updateSegment(projectId, segment.id, body) : createSegment(projectId, { ...body, type });
    },
    onSuccess: (s) => {
      void qc.invalidateQueries({ queryKey: segmentKeys.all(projectId) });
      notifySuccess(segment ? `${s.name} saved.` : `${s.name} created.`);
      if (!segment) void navigate(`${base}/${s.id}`, { replace: true });
    },
  });
  const saveErrors = save.error instanceof ApiError ? save.error.fieldErrors : [];
  // The count's refusal points at filters as soon as the person edits; the save's after they save.
  const countErrors = count.error instanceof ApiError ? count.error.fieldErrors : [];
  const conditionErrors = [...saveErrors, ...countErrors].filter((e) => e.field.startsWith('condition'));
  const nameError =
    saveErrors.find((e) => e.field === 'name')?.message ??
    (save.isError && !name.trim() ? 'Name is required' : undefined);
  const otherError =
    save.error && !(save.error instanceof ApiError && save.error.fieldErrors.length > 0) ? save.error : null;

  return (
    <>
      <PageHeader
        title={segment ? segment.name : 'New segment'}
        description={dynamic ? 'Contacts who match the condition, evaluated live.' : 'Contacts you add by hand.'}
        actions={
          segment && (
            <Button variant="default" color="red" leftSection={<IconTrash size={16} />} onClick={del.open}>
              Delete
            </Button>
          )
        }
      />
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (name.trim()) save.mutate();
        }}
      >
        <Stack gap="md">
          <Paper p="md">
            <Stack gap="sm">
              <Group align="flex-start" grow>
                <TextInput
                  label="Name"
                  required
                  value={name}
                  error={nameError}
                  onChange={(e) => setName(e.currentTarget.value)}
                  maxLength={100}
                />
                <NativeSelect
                  label="Type"
                  value={type}
                  disabled={Boolean(segment)}
                  onChange={(e) => setType(e.currentTarget.value as 'DYNAMIC' | 'STATIC')}
                  data={[
                    { value: 'DYNAMIC', label: 'Dynamic: by condition' },
                    { value: 'STATIC', label: 'Static: a list of contacts' },
                  ]}
                />
              </Group>
              <Textarea
                label="Description"
                autosize
                minRows={1}
                value={description}
                onChange={(e) => setDescription(e.currentTarget.value)}
                maxLength={500}
              />
              <Switch
                label="Track membership (entry and exit events, recomputed on a schedule)"
                checked={tracked}
                onChange={(e) => setTracked(e.currentTarget.checked)}
              />
            </Stack>
          </Paper>
          {dynamic && (
            <Paper p="md">
              <Group justify="space-between" mb="sm">
                <Title order={2} size="h4">
                  Condition
                </Title>
                <LiveCount query={count} noun={['matching contact', 'matching contacts']} />
              </Group>
              {options.data ? (
                <ConditionBuilder
                  value={condition}
                  onChange={setCondition}
                  options={options.data}
                  errors={conditionErrors}
                  path="condition"
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
          {otherError && <ErrorAlert error={otherError} />}
          {save.isError && conditionErrors.length > 0 && (
            <Text size="sm" c="red">
              The server refused the condition: see the highlighted filters.
            </Text>
          )}
          <Group>
            <Button type="submit" loading={save.isPending} leftSection={<IconDeviceFloppy size={16} />}>
              {segment ? 'Save segment' : 'Create segment'}
            </Button>
          </Group>
        </Stack>
      </form>
      {segment && <SegmentMembersPanel projectId={projectId} segment={segment} />}
      {segment && (
        <ConfirmDialog
          opened={deleting}
          onClose={del.close}
          title={`Delete ${segment.name}?`}
          confirmLabel="Delete segment"
          danger
          onConfirm={async () => {
            await deleteSegment(projectId, segment.id);
            void qc.invalidateQueries({ queryKey: segmentKeys.all(projectId) });
            notifySuccess(`${segment.name} deleted.`);
            void navigate(base);
          }}
        >
          The segment goes; its contacts stay. Campaigns scheduled for it prevent deleting it.
        </ConfirmDialog>
      )}
    </>
  );
}
