import { Group, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';

interface PageHeaderProps {
  title: string;
  description?: ReactNode;
  /** Buttons on the right. */
  actions?: ReactNode;
}

/** The title block of every screen: one `h1`, a line saying what the screen is for, its main actions. */
export function PageHeader({ title, description, actions }: PageHeaderProps) {
  return (
    // Wraps: on a phone the actions go under the title instead of widening the page.
    <Group justify="space-between" align="flex-start" mb="lg" gap="md">
      <Stack gap={4} style={{ flex: '1 1 240px', minWidth: 0 }}>
        <Title order={1} size="h2">
          {title}
        </Title>
        {description && (
          <Text c="dimmed" size="sm" maw={720}>
            {description}
          </Text>
        )}
      </Stack>
      {actions && <Group gap="sm">{actions}</Group>}
    </Group>
  );
}
