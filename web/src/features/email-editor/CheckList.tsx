import { Alert, Anchor, List, Stack, Text } from '@mantine/core';
import { IconAlertCircle, IconAlertTriangle, IconInfoCircle } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import type { ContentCheck } from './types';

/** The list's groups in the order they matter: what stops a save, what asks first, what only says. */
const GROUPS: Array<{
  severity: ContentCheck['severity'];
  title: string;
  color: string;
  icon: ReactNode;
  testId: string;
}> = [
  {
    severity: 'error',
    title: 'Fix before saving',
    color: 'red',
    icon: <IconAlertCircle size={18} />,
    testId: 'check-errors',
  },
  {
    severity: 'warning',
    title: 'Worth a look',
    color: 'yellow',
    icon: <IconAlertTriangle size={18} />,
    testId: 'check-warnings',
  },
  { severity: 'info', title: 'Good to know', color: 'gray', icon: <IconInfoCircle size={18} />, testId: 'check-info' },
];

/**
 * The pre-save check list (the preview answer's `checks` and the dashboard's own): errors, which block
 * saving, then warnings, which ask first, then what is good to know (asks nothing). A check about a block links to it (selects it in the editor).
 */
export function CheckList({ checks, onSelect }: { checks: ContentCheck[]; onSelect?: (blockId: string) => void }) {
  if (checks.length === 0) return null;
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
  return (
    <Stack gap="xs" data-testid="check-list">
      {GROUPS.map((g) => {
        const found = checks.filter((c) => c.severity === g.severity);
        if (!found.length) return null;
        return (
          <Alert key={g.severity} color={g.color} variant="light" icon={g.icon} data-testid={g.testId}>
            {/* The title as body text: Alert's own title colour is too faint on the light background (axe). */}
            <Text size="sm" fw={600}>
              {g.title}
            </Text>
            <List size="sm" spacing={2}>
              {found.map(item)}
            </List>
          </Alert>
        );
      })}
    </Stack>
  );
}
