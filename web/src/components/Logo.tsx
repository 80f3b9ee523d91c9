import { Group, Text } from '@mantine/core';

/** Pigeon's mark and name. */
export function Logo({ size = 'md' }: { size?: 'md' | 'lg' }) {
  const px = size === 'lg' ? 34 : 28;
  return (
    <Group gap={8} wrap="nowrap">
      <svg width={px} height={px} viewBox="0 0 32 32" aria-hidden="true">
        <rect width="32" height="32" rx="8" fill="var(--mantine-color-indigo-7)" />
        <path d="M7 20c3-1 5-4 6-7 2 2 5 3 8 2l4-4-1 6c-1 4-5 7-10 7H7z" fill="#fff" />
        <circle cx="21" cy="11" r="1.3" fill="var(--mantine-color-indigo-7)" />
      </svg>
      <Text fw={700} size={size === 'lg' ? 'xl' : 'lg'} c="var(--mantine-color-text)">
        Pigeon
      </Text>
    </Group>
  );
}
