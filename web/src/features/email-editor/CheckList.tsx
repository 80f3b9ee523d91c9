import { Alert, Anchor, List, Stack, Text } from '@mantine/core';
import { IconAlertCircle, IconAlertTriangle, IconInfoCircle } from '@tabler/icons-react';
import type { ContentCheck } from './types';

/**
 * The pre-save check list (the preview answer's `checks` and the dashboard's own): errors, which block
 * saving, then warnings, which ask first, then what is good to know (asks nothing). A check about a block links to it (selects it in the editor).
 */
export function CheckList({ checks, onSelect }: { checks: ContentCheck[]; onSelect?: (blockId: string) => void }) {
  if (checks.length === 0) return null;
  const group = (severity: ContentCheck['severity']) => checks.filter((c) => c.severity === severity);
  const item = (c: ContentCheck, i: number) => (
    <List.Item key={`${c.code}-${c.blockId}-${i}`}>
      {c.blockId && onSelect ? (
        // The alert's own text colour, underlined: the link colour is too faint on a dark alert (axe).
        <Anchor
          component="button"
          type="button"
          size="sm"
          c="inherit"
          underline="always"
          onClick={() => onSelect(c.blockId!)}
          ta="left"
        >
          {c.message}
        </Anchor>
      ) : (
        <Text size="sm">{c.message}</Text>
      )}
    </List.Item>
  );
  const errors = group('error');
  const warnings = group('warning');
  const infos = group('info');
  return (
    <Stack gap="xs" data-testid="check-list">
      {errors.length > 0 && (
        <Alert
          color="red"
          variant="light"
          icon={<IconAlertCircle size={18} />}

          data-testid="check-errors"
        >
          {/* The title as body text: Alert's own title colour is too faint on the light background (axe). */}
          <Text size="sm" fw={600}>
            Fix before saving
          </Text>
          <List size="sm" spacing={2}>
            {errors.map(item)}
          </List>
        </Alert>
      )}
      {warnings.length > 0 && (
        <Alert
          color="yellow"
          variant="light"
          icon={<IconAlertTriangle size={18} />}

          data-testid="check-warnings"
        >
          <Text size="sm" fw={600}>
            Worth a look
          </Text>
          <List size="sm" spacing={2}>
            {warnings.map(item)}
          </List>
        </Alert>
      )}
      {infos.length > 0 && (
        <Alert color="gray" variant="light" icon={<IconInfoCircle size={18} />} data-testid="check-info">
          <Text size="sm" fw={600}>
            Good to know
          </Text>
          <List size="sm" spacing={2}>
            {infos.map(item)}
          </List>
        </Alert>
      )}
    </Stack>
  );
}
