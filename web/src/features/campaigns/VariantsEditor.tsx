import { ActionIcon, Button, Checkbox, Group, Paper, SimpleGrid, Stack, Text, TextInput, Tooltip } from '@mantine/core';
import { IconPlus, IconX } from '@tabler/icons-react';
import { BodyField } from './BodyField';
import { MIN_VARIANTS, nextVariant, type VariantDraft } from './experiment';

/** The campaign's own fields, which a variant's empty fields fall back to (shown as placeholders). */
export interface CampaignDefaults {
  subject: string;
  from: string;
  fromName: string;
  body: string;
}

/**
 * The variants of an A/B test side by side (two to five): each with its subject, from name, from
 * address and, when ticked, its own body; an empty field is the campaign's, shown as its placeholder.
 * `err(path)` is the message for an API field path (`variants.0.subject`), `onChange` names the path
 * that changed.
 */
export function VariantsEditor({
  variants,
  onChange,
  defaults,
  err,
}: {
  variants: VariantDraft[];
  onChange: (variants: VariantDraft[], field: string) => void;
  defaults: CampaignDefaults;
  err: (field: string) => string | undefined;
}) {
  const next = nextVariant(variants);
  const set = (i: number, patch: Partial<VariantDraft>) =>
    onChange(
      variants.map((v, j) => (j === i ? { ...v, ...patch } : v)),
      `variants.${i}.${Object.keys(patch)[0]}`,
    );
  return (
    <Stack gap="sm">
      <SimpleGrid cols={{ base: 1, sm: 2, xl: Math.min(variants.length, 3) }} data-testid="variants">
        {variants.map((v, i) => (
          <Paper key={v.key} p="sm" withBorder data-variant={v.key}>
            <Stack gap="xs">
              <Group justify="space-between" wrap="nowrap">
                <Text fw={700}>Variant {v.key}</Text>
                {variants.length > MIN_VARIANTS && (
                  <Tooltip label={`Remove variant ${v.key}`}>
                    <ActionIcon
                      variant="subtle"
                      color="gray"
                      aria-label={`Remove variant ${v.key}`}
                      onClick={() =>
                        onChange(
                          variants.filter((_, j) => j !== i),
                          'variants',
                        )
                      }
                    >
                      <IconX size={16} />
                    </ActionIcon>
                  </Tooltip>
                )}
              </Group>
              <TextInput
                label={`Subject of ${v.key}`}
                placeholder={defaults.subject || 'The campaign’s subject'}
                value={v.subject}
                onChange={(e) => set(i, { subject: e.currentTarget.value })}
                error={err(`variants.${i}.subject`)}
              />
              <TextInput
                label={`From name of ${v.key}`}
                placeholder={defaults.fromName || 'The campaign’s (none)'}
                value={v.fromName}
                onChange={(e) => set(i, { fromName: e.currentTarget.value })}
                error={err(`variants.${i}.fromName`)}
              />
              <TextInput
                label={`From address of ${v.key}`}
                type="email"
                placeholder={defaults.from || 'The campaign’s address'}
                value={v.from}
                onChange={(e) => set(i, { from: e.currentTarget.value })}
                error={err(`variants.${i}.from`)}
              />
              <Checkbox
                label="Its own body"
                description={v.body === null ? 'Unticked: the campaign’s body' : undefined}
                checked={v.body !== null}
                // Starts from the campaign's body: a variant usually changes a part of it.
                onChange={(e) => set(i, { body: e.currentTarget.checked ? defaults.body : null })}
              />
              {v.body !== null && (
                <BodyField
                  label={`Body of ${v.key} (HTML)`}
                  description="Only this variant’s mail"
                  minRows={6}
                  value={v.body}
                  onChange={(body) => set(i, { body })}
                  error={err(`variants.${i}.body`)}
                />
              )}
            </Stack>
          </Paper>
        ))}
      </SimpleGrid>
      {next && (
        <Group>
          <Button
            variant="default"
            size="xs"
            leftSection={<IconPlus size={14} />}
            onClick={() => onChange([...variants, next], 'variants')}
          >
            Add variant {next.key}
          </Button>
        </Group>
      )}
    </Stack>
  );
}
