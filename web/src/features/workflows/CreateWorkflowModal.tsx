import { Button, Group, Modal, Select, Stack, Text, TextInput } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { z } from 'zod';
import { FormError, useApiForm } from '../../components/forms';
import { notifySuccess } from '../../components/notify';
import { createWorkflow, workflowKeys } from './api';

// Its own chunk, loaded on the dialog's first opening: the form rules (zod) stay off the list's first screen.

const rules = z
  .object({
    name: z.string().trim().min(1, 'Give the workflow a name').max(200),
    kind: z.enum(['EVENT', 'LATER']),
    eventName: z.string().trim().max(200),
  })
  .refine((v) => v.kind !== 'EVENT' || v.eventName.length > 0, {
    path: ['eventName'],
    message: 'Enter the event that starts it, e.g. signup',
  });

/**
 * "New workflow": name and trigger event (`POST /workflows`), or another trigger (a segment, a
 * schedule) picked on the trigger step afterwards (it starts as MANUAL), then opens the editor.
 */
export function CreateWorkflowModal({
  projectId,
  opened,
  onClose,
}: {
  projectId: string;
  opened: boolean;
  onClose: () => void;
}) {
  const qc = useQueryClient();
  const navigate = useNavigate();
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: { name: '', kind: 'EVENT' as 'EVENT' | 'LATER', eventName: '' },
    schema: rules,
    submit: (v) =>
      createWorkflow(
        projectId,
        v.kind === 'EVENT'
          ? { name: v.name.trim(), eventName: v.eventName.trim() }
          : { name: v.name.trim(), triggerType: 'MANUAL' },
      ),
    onSuccess: (w) => {
      void qc.invalidateQueries({ queryKey: workflowKeys.list(projectId) });
      qc.setQueryData(workflowKeys.one(projectId, w.id), w);
      notifySuccess(
        w.triggerType === 'EVENT'
          ? `${w.name} created: add its steps, then enable it.`
          : `${w.name} created: pick its trigger on the trigger step, add its steps, then enable it.`,
      );
      void navigate(`/p/${projectId}/workflows/${w.id}`);
    },
  });
  const close = () => {
    form.reset();
    mutation.reset();
    onClose();
  };
  return (
    <Modal opened={opened} onClose={close} title={<Text fw={600}>New workflow</Text>} centered>
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="md">
          <TextInput
            label="Name"
            placeholder="Welcome series"
            data-autofocus
            key={form.key('name')}
            {...form.getInputProps('name')}
          />
          <Select
            label="Starts"
            data={[
              { value: 'EVENT', label: 'When an event is tracked' },
              { value: 'LATER', label: 'Another way: a segment, a schedule, by hand (set on the trigger step)' },
            ]}
            allowDeselect={false}
            key={form.key('kind')}
            {...form.getInputProps('kind')}
          />
          {form.values.kind === 'EVENT' && (
            <TextInput
              label="Trigger event"
              description="The event name your app tracks (POST /v1/track) that starts the workflow for a contact"
              placeholder="signup"
              key={form.key('eventName')}
              {...form.getInputProps('eventName')}
            />
          )}
          <FormError error={formError} />
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={mutation.isPending}>
              Create workflow
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
