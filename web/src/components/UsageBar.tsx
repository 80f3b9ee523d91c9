import { Group, Progress, Stack, Text } from '@mantine/core';

interface UsageBarProps {
  label: string;
  used: number;
  /** null: no cap. */
  limit: number | null;
}

const fmt = new Intl.NumberFormat();

/** Consumption against a cap as a bar: green, then yellow past 80 %, red at the cap. */
export function UsageBar({ label, used, limit }: UsageBarProps) {
  const ratio = limit ? Math.min(1, used / limit) : 0;
  const color = limit === null ? 'gray' : ratio >= 1 ? 'red' : ratio >= 0.8 ? 'yellow' : 'teal';
  return (
    <Stack gap={6}>
      <Group justify="space-between">
        <Text size="sm" fw={500}>
          {label}
        </Text>
        <Text size="sm" c="dimmed">
          {fmt.format(used)} {limit === null ? 'sent · no cap' : `of ${fmt.format(limit)}`}
        </Text>
      </Group>
      <Progress
        value={limit === null ? 0 : ratio * 100}
        color={color}
        size="lg"
        radius="xl"
        aria-label={`${label}: ${fmt.format(used)}${limit === null ? ', no cap' : ` of ${fmt.format(limit)}`}`}
      />
    </Stack>
  );
}
