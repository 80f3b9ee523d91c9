import { Button, Group, Modal, Select, Stack, Text, TextInput } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { FormError, useApiForm } from '../../components/forms';
import { notifySuccess } from '../../components/notify';
import { addSuppression, suppressionKeys, type SuppressionReason } from './api';
import { PICKABLE, REASONS } from './reasons';

const addForm = z.object({
  email: z
    .string()
    .trim()
    .min(1, 'Enter the address to stop marketing mail to.')
    .pipe(z.email({ message: 'This is not an email address.' })),
  reason: z.enum(['bounce', 'complaint', 'manual', 'unsubscribe']),
});

/** Adds one address to the suppression list (`POST /suppressions`), saying when it was already on it. */
export function AddSuppressionModal({
  projectId,
  opened,
  onClose,
}: {
  projectId: string;
  opened: boolean;
  onClose: () => void;
}) {
  const qc = useQueryClient();
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: { email: '', reason: 'manual' as SuppressionReason },
    schema: addForm,
    submit: (v) => addSuppression(projectId, v.email.trim(), v.reason),
    onSuccess: (r, v) => {
      void qc.invalidateQueries({ queryKey: suppressionKeys.all(projectId) });
      notifySuccess(
        r.added
          ? `${v.email.trim().toLowerCase()} gets no more marketing mail.`
          : `${v.email.trim().toLowerCase()} was already on the list; it keeps its first reason.`,
      );
      close();
    },
  });
  const close = () => {
    form.reset();
    mutation.reset();
    onClose();
  };
  return (
    <Modal opened={opened} onClose={close} title={<Text fw={600}>Suppress an address</Text>} centered>
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="md">
          <TextInput
            label="Email address"
            placeholder="someone@example.com"
            required
            data-autofocus
            key={form.key('email')}
            {...form.getInputProps('email')}
          />
          <Select
            label="Reason"
            data={PICKABLE.map((r) => ({ value: r, label: REASONS[r].label }))}
            allowDeselect={false}
            description={REASONS[form.getValues().reason].hint}
            key={form.key('reason')}
            {...form.getInputProps('reason')}
          />
          <FormError error={formError} />
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={mutation.isPending}>
              Suppress
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
