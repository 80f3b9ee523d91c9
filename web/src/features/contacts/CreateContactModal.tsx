import { Button, Group, Modal, Stack, Switch, Text, TextInput } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { z } from 'zod';
import { FormError, useApiForm } from '../../components/forms';
import { notifySuccess } from '../../components/notify';
import { contactKeys, createContact } from './api';
import { DataEditor } from './DataEditor';
import { dataFromRows, type DataRow, type RowErrors } from './dataRows';

const rules = z.object({
  email: z
    .string()
    .trim()
    .min(1, 'Enter an email address')
    .pipe(z.email({ message: 'Invalid email' })),
});

/**
 * "Add contact": email, subscribed (on by default, as the API does) and optional data fields;
 * `POST /contacts`. An existing email is updated rather than duplicated: the toast says which.
 */
export function CreateContactModal({
  projectId,
  opened,
  onClose,
}: {
  projectId: string;
  opened: boolean;
  onClose: () => void;
}) {
  const qc = useQueryClient();
  const [rows, setRows] = useState<DataRow[]>([]);
  const [rowErrors, setRowErrors] = useState<Record<string, RowErrors>>({});
  const { form, mutation, formError } = useApiForm({
    initialValues: { email: '', subscribed: true, data: {} as Record<string, unknown> },
    schema: rules,
    submit: (v) => createContact(projectId, { email: v.email.trim(), subscribed: v.subscribed, data: v.data }),
    onSuccess: (c) => {
      void qc.invalidateQueries({ queryKey: contactKeys.all(projectId) });
      notifySuccess(c._meta.isNew ? `${c.email} was added.` : `${c.email} already existed: its data was updated.`);
      close();
    },
  });
  const close = () => {
    form.reset();
    setRows([]);
    setRowErrors({});
    mutation.reset();
    onClose();
  };
  const onSubmit = form.onSubmit((values) => {
    const d = dataFromRows(rows);
    setRowErrors(d.errors);
    if (d.valid) mutation.mutate({ ...values, data: d.data });
  });
  return (
    <Modal opened={opened} onClose={close} title={<Text fw={600}>Add a contact</Text>} size="xl" centered>
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="md">
          <TextInput
            label="Email"
            placeholder="ada@example.com"
            data-autofocus
            key={form.key('email')}
            {...form.getInputProps('email')}
          />
          <Switch
            label="Subscribed"
            description="Receives campaigns. Transactional mail is sent either way."
            key={form.key('subscribed')}
            {...form.getInputProps('subscribed', { type: 'checkbox' })}
          />
          <Stack gap={4}>
            <Text size="sm" fw={500}>
              Data
            </Text>
            <Text size="xs" c="dimmed">
              Custom fields for templates and segments, e.g. firstName or plan.
            </Text>
          </Stack>
          <DataEditor rows={rows} onChange={setRows} errors={rowErrors} />
          <FormError error={formError} />
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={mutation.isPending}>
              Add contact
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
