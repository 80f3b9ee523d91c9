import { Button, Checkbox, Group, Modal, SimpleGrid, Stack, Text, TextInput, Textarea } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { ApiError } from '../../api/errors';
import { FormError, useApiForm } from '../../components/forms';
import { createScopedKey, SCOPE_GROUPS, scopedKeyKeys, type CreatedScopedKey, type Scope } from './scoped-api';

interface Values {
  name: string;
  scopes: Scope[];
  /** One address or CIDR range a line. */
  allowedIps: string;
  /** `YYYY-MM-DD` (the key works until the end of that day, local time), or empty: no expiry. */
  expiresOn: string;
  // useApiForm's values are a record.
  [k: string]: unknown;
}

const today = () => new Date().toLocaleDateString('en-CA');
// A light check of each line (the server checks ranges exactly and names the line it refuses).
const ADDRESS = /^[0-9a-fA-F:.]+(\/\d{1,3})?$/;
const lines = (text: string) =>
  text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);

const rules = z.object({
  name: z.string().trim().min(1, 'Give the key a name that says where it is used.').max(100),
  scopes: z.array(z.string()).min(1, 'Choose at least one thing the key may do.'),
  allowedIps: z
    .string()
    .refine((t) => lines(t).length <= 50, 'At most 50 addresses or ranges.')
    .refine(
      (t) => lines(t).every((l) => ADDRESS.test(l)),
      'Each line must be an IP address or a range such as 203.0.113.0/24.',
    ),
  expiresOn: z.string().refine((d) => !d || d >= today(), 'Pick today or a later day.'),
});

/**
 * Creates a scoped key (`POST /projects/:id/api-keys`): a name, the scopes by area (read and write
 * apart), the addresses it may be used from and an optional last day. `onCreated` gets the key, which
 * the caller shows once.
 */
export function ScopedKeyModal({
  projectId,
  opened,
  onClose,
  onCreated,
}: {
  projectId: string;
  opened: boolean;
  onClose: () => void;
  onCreated: (key: CreatedScopedKey) => void;
}) {
  const qc = useQueryClient();
  const { form, onSubmit, mutation, formError } = useApiForm<Values, CreatedScopedKey>({
    initialValues: { name: '', scopes: [], allowedIps: '', expiresOn: '' },
    schema: rules,
    submit: async (v) => {
      try {
        return await createScopedKey(projectId, {
          name: v.name.trim(),
          scopes: v.scopes,
          allowedIps: lines(v.allowedIps),
          expiresAt: v.expiresOn ? new Date(`${v.expiresOn}T23:59:59`).toISOString() : null,
        });
      } catch (err) {
        // The server names the refused range by its index (`allowedIps.2`): show it at the text box.
        if (err instanceof ApiError)
          for (const fe of err.fieldErrors) {
            const m = /^allowedIps\.(\d+)$/.exec(fe.field);
            if (m) Object.assign(fe, { field: 'allowedIps', message: `Line ${Number(m[1]) + 1}: ${fe.message}` });
          }
        throw err;
      }
    },
    onSuccess: (created) => {
      void qc.invalidateQueries({ queryKey: scopedKeyKeys.all(projectId) });
      close();
      onCreated(created);
    },
  });
  const close = () => {
    form.reset();
    mutation.reset();
    onClose();
  };
  const choice = (area: string, scope: Scope | undefined, label: string) =>
    scope ? <Checkbox value={scope} label={label} aria-label={`${area}: ${label.toLowerCase()}`} /> : <span />;
  return (
    <Modal opened={opened} onClose={close} title={<Text fw={600}>New scoped key</Text>} centered size="lg">
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="md">
          <TextInput
            label="Name"
            placeholder="Website sign-up form"
            required
            data-autofocus
            key={form.key('name')}
            {...form.getInputProps('name')}
          />
          <Checkbox.Group
            label="What the key may do"
            description="Reading does not include writing, nor the other way round. Anything not ticked is refused."
            required
            key={form.key('scopes')}
            {...form.getInputProps('scopes')}
          >
            <Stack gap={6} mt="xs">
              {SCOPE_GROUPS.map((g) => (
                <SimpleGrid key={g.area} cols={{ base: 1, xs: 2 }} spacing="xs" verticalSpacing={2}>
                  <div>
                    <Text size="sm" fw={500}>
                      {g.area}
                    </Text>
                    <Text size="xs" c="dimmed">
                      {g.what}
                    </Text>
                  </div>
                  <Group gap="lg" align="center">
                    {g.only ? (
                      choice(g.area, g.only, 'Allowed')
                    ) : (
                      <>
                        {choice(g.area, g.read, 'Read')}
                        {choice(g.area, g.write, 'Write')}
                      </>
                    )}
                  </Group>
                </SimpleGrid>
              ))}
            </Stack>
          </Checkbox.Group>
          <Textarea
            label="Allowed IP addresses"
            description="One address or range a line (203.0.113.7, 203.0.113.0/24, 2001:db8::/32). Empty: any address."
            autosize
            minRows={2}
            maxRows={8}
            key={form.key('allowedIps')}
            {...form.getInputProps('allowedIps')}
          />
          <TextInput
            label="Expires"
            description="The key works until the end of this day. Empty: it does not expire."
            type="date"
            min={today()}
            key={form.key('expiresOn')}
            {...form.getInputProps('expiresOn')}
          />
          <FormError error={formError} />
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={mutation.isPending}>
              Create key
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
