import {
  Button,
  Group,
  Modal,
  NumberInput,
  PasswordInput,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  TextInput,
} from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { FormError, useApiForm } from '../../components/forms';
import { notifySuccess } from '../../components/notify';
import { createTransport, transportKeys, updateTransport, type CreateTransport, type Transport } from './api';

type Values = {
  name: string;
  kind: 'smtp' | 'ses';
  settings: {
    url: string;
    password: string;
    region: string;
    configurationSet: string;
    accessKeyId: string;
    secretAccessKey: string;
  };
  maxPerSecond: number | string;
  maxConnections: number | string;
  enabled: boolean;
};

const USER_AT = /^(smtps?:\/\/)([^@/?#:]+)(?::[^@/?#]*)?@/i;

const rules = z
  .object({
    name: z.string().trim().min(1, 'Give the transport a name, e.g. “Backup relay”.').max(100),
    kind: z.enum(['smtp', 'ses']),
    settings: z.object({
      url: z.string(),
      password: z.string(),
      region: z.string(),
      configurationSet: z.string(),
      accessKeyId: z.string(),
      secretAccessKey: z.string(),
    }),
    maxPerSecond: z.union([z.number(), z.string()]),
    maxConnections: z.union([z.number(), z.string()]),
    enabled: z.boolean(),
  })
  .superRefine((v, ctx) => {
    if (v.kind === 'smtp') {
      if (!/^smtps?:\/\/\S+/i.test(v.settings.url.trim()))
        ctx.addIssue({
          code: 'custom',
          path: ['settings', 'url'],
          message: 'Enter the relay’s URL, e.g. smtp://user@smtp.example.com:587.',
        });
      else if (v.settings.password && !USER_AT.test(v.settings.url.trim()))
        ctx.addIssue({
          code: 'custom',
          path: ['settings', 'url'],
          message: 'Put the user name in the URL (smtp://user@host:587) to log in with a password.',
        });
    } else if (!v.settings.region.trim())
      ctx.addIssue({ code: 'custom', path: ['settings', 'region'], message: 'Enter the SES region, e.g. eu-west-1.' });
  });

/** The URL with the password put in after the user name (the server seals it and stores the URL without it). */
function withPassword(url: string, password: string): string {
  return password
    ? url.replace(USER_AT, (_m, scheme: string, user: string) => `${scheme}${user}:${encodeURIComponent(password)}@`)
    : url;
}

const count = (v: number | string) => (v === '' || v === undefined ? null : Number(v));

/** Adds a transport, or edits `transport` when given (`POST /transports`, `PATCH /transports/:id`). */
export function TransportModal({
  projectId,
  transport,
  opened,
  onClose,
}: {
  projectId: string;
  transport: Transport | null;
  opened: boolean;
  onClose: () => void;
}) {
  const qc = useQueryClient();
  const s = transport?.settings;
  const initialValues: Values = {
    name: transport?.name ?? '',
    kind: transport?.kind ?? 'smtp',
    settings: {
      url: s && 'url' in s ? s.url : '',
      password: '',
      region: s && 'region' in s ? s.region : '',
      configurationSet: s && 'region' in s ? (s.configurationSet ?? '') : '',
      accessKeyId: s && 'region' in s ? (s.accessKeyId ?? '') : '',
      secretAccessKey: '',
    },
    maxPerSecond: transport?.maxPerSecond ?? '',
    maxConnections: transport?.maxConnections ?? '',
    enabled: transport?.enabled ?? true,
  };
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues,
    schema: rules,
    submit: (v: Values) => {
      const settings =
        v.kind === 'smtp'
          ? { url: withPassword(v.settings.url.trim(), v.settings.password) }
          : {
              region: v.settings.region.trim(),
              ...(v.settings.configurationSet.trim() ? { configurationSet: v.settings.configurationSet.trim() } : {}),
              ...(v.settings.accessKeyId.trim() ? { accessKeyId: v.settings.accessKeyId.trim() } : {}),
              ...(v.settings.secretAccessKey ? { secretAccessKey: v.settings.secretAccessKey } : {}),
            };
      const common = {
        name: v.name.trim(),
        maxPerSecond: count(v.maxPerSecond),
        maxConnections: count(v.maxConnections),
        enabled: v.enabled,
      };
      return transport
        ? updateTransport(projectId, transport.id, { ...common, kind: v.kind, settings })
        : createTransport(projectId, { ...common, kind: v.kind, settings } as CreateTransport);
    },
    onSuccess: (t) => {
      void qc.invalidateQueries({ queryKey: transportKeys.all(projectId) });
      notifySuccess(transport ? `Transport “${t.name}” saved.` : `Transport “${t.name}” added.`);
      close();
    },
  });
  const close = () => {
    form.reset();
    mutation.reset();
    onClose();
  };
  const kind = form.getValues().kind;
  // A stored secret is kept while the kind stays; the field says so instead of showing it.
  const saved = transport?.credentials === 'set' && transport.kind === kind;
  const keepHint = saved ? 'Saved — leave empty to keep' : undefined;
  return (
    <Modal
      opened={opened}
      onClose={close}
      title={<Text fw={600}>{transport ? 'Edit transport' : 'Add a transport'}</Text>}
      centered
      size="lg"
    >
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="md">
          <TextInput
            label="Name"
            placeholder="Backup relay"
            required
            data-autofocus
            key={form.key('name')}
            {...form.getInputProps('name')}
          />
          <Stack gap={4}>
            <Text size="sm" fw={500} id="transport-kind-label">
              Kind
            </Text>
            <SegmentedControl
              aria-labelledby="transport-kind-label"
              data={[
                { value: 'smtp', label: 'SMTP relay' },
                { value: 'ses', label: 'Amazon SES' },
              ]}
              key={form.key('kind')}
              {...form.getInputProps('kind')}
            />
          </Stack>
          {kind === 'smtp' ? (
            <>
              <TextInput
                label="SMTP URL"
                description="smtp:// uses STARTTLS (port 587 unless given), smtps:// uses TLS (465). Put the user name before @."
                placeholder="smtp://user@smtp.example.com:587"
                required
                key={form.key('settings.url')}
                {...form.getInputProps('settings.url')}
              />
              <PasswordInput
                label="Password"
                description="Stored encrypted, never shown again."
                placeholder={keepHint}
                autoComplete="new-password"
                key={form.key('settings.password')}
                {...form.getInputProps('settings.password')}
              />
            </>
          ) : (
            <>
              <SimpleGrid cols={{ base: 1, sm: 2 }}>
                <TextInput
                  label="Region"
                  placeholder="eu-west-1"
                  required
                  key={form.key('settings.region')}
                  {...form.getInputProps('settings.region')}
                />
                <TextInput
                  label="Configuration set"
                  description="Optional"
                  key={form.key('settings.configurationSet')}
                  {...form.getInputProps('settings.configurationSet')}
                />
              </SimpleGrid>
              <SimpleGrid cols={{ base: 1, sm: 2 }}>
                <TextInput
                  label="Access key id"
                  description="Empty: the server’s own AWS credentials"
                  key={form.key('settings.accessKeyId')}
                  {...form.getInputProps('settings.accessKeyId')}
                />
                <PasswordInput
                  label="Secret access key"
                  description="Stored encrypted, never shown again."
                  placeholder={keepHint}
                  autoComplete="new-password"
                  key={form.key('settings.secretAccessKey')}
                  {...form.getInputProps('settings.secretAccessKey')}
                />
              </SimpleGrid>
            </>
          )}
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <NumberInput
              label="Messages per second, at most"
              description="Empty: no limit of its own"
              min={1}
              max={100000}
              allowDecimal={false}
              key={form.key('maxPerSecond')}
              {...form.getInputProps('maxPerSecond')}
            />
            <NumberInput
              label="Connections at once, at most"
              description="Empty: the default"
              min={1}
              max={100}
              allowDecimal={false}
              key={form.key('maxConnections')}
              {...form.getInputProps('maxConnections')}
            />
          </SimpleGrid>
          <Switch
            label="Enabled: routing rules may send through it"
            key={form.key('enabled')}
            {...form.getInputProps('enabled', { type: 'checkbox' })}
          />
          <FormError error={formError} />
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={mutation.isPending}>
              {transport ? 'Save' : 'Add transport'}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
