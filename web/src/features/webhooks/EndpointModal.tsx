import { Button, Group, Modal, NumberInput, Stack, Text, TextInput } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { FormError, useApiForm } from '../../components/forms';
import { createEndpoint, updateEndpoint, webhookKeys, type Endpoint, type EndpointWithSecret } from './api';
import { EventPicker } from './EventPicker';

const isHttpUrl = (v: string) => {
  try {
    const u = new URL(v);
    return (u.protocol === 'http:' || u.protocol === 'https:') && !!u.hostname;
  } catch {
    return false;
  }
};

/** The form's own checks, in sentences; the server checks again (and where the URL may point). */
const endpointForm = z.object({
  url: z
    .string()
    .trim()
    .min(1, 'Enter the address that should receive the events.')
    .max(2000, 'The address is longer than 2,000 characters.')
    .refine(isHttpUrl, 'Enter a full address starting with https:// (or http://).'),
  description: z.string().max(500, 'Keep the description under 500 characters.'),
  events: z.array(z.string()).min(1, 'Pick at least one event to send.'),
  concurrency: z
    .number({ message: 'Enter how many deliveries may be in flight at once, from 1 to 64.' })
    .int('Enter a whole number from 1 to 64.')
    .min(1, 'At least 1 delivery at a time.')
    .max(64, 'At most 64 deliveries at a time.'),
});

type Values = z.infer<typeof endpointForm>;

/**
 * Adds an endpoint (`POST /webhook-endpoints`, then `onCreated` with its secret, shown once) or, given
 * `endpoint`, changes its address, description, events and concurrency (`PATCH`).
 */
export function EndpointModal({
  projectId,
  endpoint,
  opened,
  onClose,
  onCreated,
}: {
  projectId: string;
  endpoint?: Endpoint;
  opened: boolean;
  onClose: () => void;
  onCreated?: (e: EndpointWithSecret) => void;
}) {
  const qc = useQueryClient();
  const { form, onSubmit, mutation, formError } = useApiForm<Values, Endpoint | EndpointWithSecret>({
    initialValues: {
      url: endpoint?.url ?? '',
      description: endpoint?.description ?? '',
      events: endpoint?.events ?? ['*'],
      concurrency: endpoint?.concurrency ?? 8,
    },
    schema: endpointForm,
    submit: (v) => {
      const body = {
        url: v.url.trim(),
        description: v.description.trim() || null,
        events: v.events,
        concurrency: v.concurrency,
      };
      return endpoint ? updateEndpoint(projectId, endpoint.id, body) : createEndpoint(projectId, body);
    },
    onSuccess: (saved) => {
      void qc.invalidateQueries({ queryKey: webhookKeys.all(projectId) });
      if (!endpoint && 'secret' in saved) onCreated?.(saved);
      close();
    },
  });
  const close = () => {
    form.reset();
    mutation.reset();
    onClose();
  };
  const eventsError = Object.entries(form.errors)
    .filter(([k]) => k === 'events' || k.startsWith('events.'))
    .map(([, m]) => m)
    .join(' ');
  return (
    <Modal
      opened={opened}
      onClose={close}
      title={<Text fw={600}>{endpoint ? 'Edit endpoint' : 'Add a webhook endpoint'}</Text>}
      size="xl"
      centered
    >
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="md">
          <TextInput
            label="Endpoint URL"
            description="Pigeon POSTs each event here as signed JSON. It must be reachable from the Pigeon server."
            placeholder="https://example.com/webhooks/pigeon"
            required
            key={form.key('url')}
            {...form.getInputProps('url')}
          />
          <TextInput
            label="Description"
            description="Optional: what this endpoint is for."
            key={form.key('description')}
            {...form.getInputProps('description')}
          />
          <EventPicker
            value={form.getValues().events}
            onChange={(v) => form.setFieldValue('events', v)}
            error={eventsError || undefined}
          />
          <NumberInput
            label="Deliveries at once"
            description="How many events may be on their way to this endpoint at the same time (1-64). Events about the same email or contact always go one at a time, in order; 1 sends every event in order. Pigeon sends fewer while the endpoint answers 429 or 503, or slows down."
            min={1}
            max={64}
            allowDecimal={false}
            w={{ base: '100%', sm: 260 }}
            key={form.key('concurrency')}
            {...form.getInputProps('concurrency')}
          />
          <FormError error={formError} />
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={mutation.isPending}>
              {endpoint ? 'Save changes' : 'Add endpoint'}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
