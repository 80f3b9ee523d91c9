import {
  ActionIcon,
  Button,
  Card,
  Group,
  MultiSelect,
  Select,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Tooltip,
} from '@mantine/core';
import { IconArrowDown, IconArrowUp, IconPlus, IconTrash } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ErrorAlert } from '../../components/ErrorAlert';
import { notifySuccess } from '../../components/notify';
import { saveRules, transportKeys, type Rule, type Transport } from './api';

type Draft = { stream: '' | 'transactional' | 'marketing'; fromDomain: string; toDomain: string; transports: string[] };

const toDraft = (r: Rule): Draft => ({
  stream: r.match.stream ?? '',
  fromDomain: r.match.fromDomain ?? '',
  toDomain: r.match.toDomain ?? '',
  transports: r.transports,
});

const toRule = (d: Draft): Rule => ({
  match: {
    ...(d.stream ? { stream: d.stream } : {}),
    ...(d.fromDomain.trim() ? { fromDomain: d.fromDomain.trim() } : {}),
    ...(d.toDomain.trim() ? { toDomain: d.toDomain.trim() } : {}),
  },
  transports: d.transports,
});

/**
 * The routing rules in order (`PUT /transports/rules` on Save): each matches a stream and domains, and
 * lists the transports tried in the order picked; the first rule that matches a mail wins.
 */
export function RulesEditor({
  projectId,
  rules,
  transports,
  fallbacks = [],
}: {
  projectId: string;
  rules: Rule[];
  transports: Transport[];
  /** The server's fallbacks (`fallback-1`, …), which rules may name too. */
  fallbacks?: string[];
}) {
  const qc = useQueryClient();
  const [drafts, setDrafts] = useState<Draft[]>(() => rules.map(toDraft));
  const [dirty, setDirty] = useState(false);
  const save = useMutation({
    mutationFn: () => saveRules(projectId, drafts.map(toRule)),
    onSuccess: (r) => {
      setDrafts(r.rules.map(toDraft));
      setDirty(false);
      qc.setQueryData(transportKeys.rules(projectId), r);
      notifySuccess(r.rules.length ? 'Routing rules saved.' : 'Routing rules removed: all mail uses the default.');
    },
  });
  const change = (next: Draft[]) => {
    setDrafts(next);
    setDirty(true);
    save.reset();
  };
  const update = (i: number, patch: Partial<Draft>) => change(drafts.map((d, j) => (j === i ? { ...d, ...patch } : d)));
  const move = (i: number, by: number) => {
    const next = [...drafts];
    [next[i], next[i + by]] = [next[i + by], next[i]];
    change(next);
  };
  const choices = [
    { value: 'default', label: 'Default (the server’s own)' },
    ...fallbacks.map((f) => ({ value: f, label: `Server fallback ${f.replace('fallback-', '')}` })),
    ...transports.map((t) => ({ value: t.id, label: t.enabled ? t.name : `${t.name} (disabled)` })),
  ];
  return (
    <Stack gap="sm">
      {drafts.length === 0 && (
        <Text size="sm" c="dimmed">
          No rules: every mail goes through the default transport.
        </Text>
      )}
      {drafts.map((d, i) => (
        <Card key={i} withBorder padding="sm" component="section" aria-label={`Rule ${i + 1}`}>
          <Group justify="space-between" mb="xs" wrap="nowrap">
            <Text fw={600} size="sm">
              Rule {i + 1}
            </Text>
            <Group gap={4} wrap="nowrap">
              <Tooltip label="Move up">
                <ActionIcon
                  variant="subtle"
                  aria-label={`Move rule ${i + 1} up`}
                  disabled={i === 0}
                  onClick={() => move(i, -1)}
                >
                  <IconArrowUp size={16} />
                </ActionIcon>
              </Tooltip>
              <Tooltip label="Move down">
                <ActionIcon
                  variant="subtle"
                  aria-label={`Move rule ${i + 1} down`}
                  disabled={i === drafts.length - 1}
                  onClick={() => move(i, 1)}
                >
                  <IconArrowDown size={16} />
                </ActionIcon>
              </Tooltip>
              <Tooltip label="Remove">
                <ActionIcon
                  variant="subtle"
                  color="red"
                  aria-label={`Remove rule ${i + 1}`}
                  onClick={() => change(drafts.filter((_, j) => j !== i))}
                >
                  <IconTrash size={16} />
                </ActionIcon>
              </Tooltip>
            </Group>
          </Group>
          <SimpleGrid cols={{ base: 1, xs: 3 }} spacing="sm">
            <Select
              label="Stream"
              data={[
                { value: '', label: 'Any mail' },
                { value: 'transactional', label: 'Transactional' },
                { value: 'marketing', label: 'Marketing' },
              ]}
              value={d.stream}
              onChange={(v) => update(i, { stream: (v ?? '') as Draft['stream'] })}
              allowDeselect={false}
            />
            <TextInput
              label="From domain"
              placeholder="Any"
              value={d.fromDomain}
              onChange={(e) => update(i, { fromDomain: e.currentTarget.value })}
            />
            <TextInput
              label="To domain"
              placeholder="Any"
              value={d.toDomain}
              onChange={(e) => update(i, { toDomain: e.currentTarget.value })}
            />
          </SimpleGrid>
          <MultiSelect
            mt="sm"
            label="Transports, in the order tried"
            description="The first is used while healthy; the next ones take over when it fails."
            data={choices}
            value={d.transports}
            onChange={(v) => update(i, { transports: v })}
            maxValues={5}
            placeholder={d.transports.length ? undefined : 'Pick one or more'}
          />
        </Card>
      ))}
      {save.error && <ErrorAlert error={save.error} title="The rules were not saved" />}
      <Group justify="space-between">
        <Button
          variant="default"
          leftSection={<IconPlus size={16} />}
          disabled={drafts.length >= 50}
          onClick={() => change([...drafts, { stream: '', fromDomain: '', toDomain: '', transports: ['default'] }])}
        >
          Add a rule
        </Button>
        <Button onClick={() => save.mutate()} loading={save.isPending} disabled={!dirty}>
          Save rules
        </Button>
      </Group>
    </Stack>
  );
}
