import { EmptyState as MantineEmptyState, Paper } from '@mantine/core';
import type { ReactNode } from 'react';

interface EmptyStateProps {
  icon: ReactNode;
  title: string;
  /** What to do next: every empty list says it. */
  description: ReactNode;
  /** The button or link that does it. */
  action?: ReactNode;
}

/** What a list shows when it has nothing: what it is for and what to do next. */
export function EmptyState({ icon, title, description, action }: EmptyStateProps) {
  return (
    <Paper p="xl" data-testid="empty-state">
      <MantineEmptyState icon={icon} title={title} description={description} variant="light" py="md">
        {action && <MantineEmptyState.Actions>{action}</MantineEmptyState.Actions>}
      </MantineEmptyState>
    </Paper>
  );
}
