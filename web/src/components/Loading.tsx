import { Center, Loader, Skeleton, Stack } from '@mantine/core';

/** The whole window while the session is being checked. */
export function FullPageLoader() {
  return (
    <Center h="100vh" aria-busy="true" aria-label="Loading">
      <Loader />
    </Center>
  );
}

/** A screen's content while its first request runs. */
export function ContentSkeleton({ rows = 3 }: { rows?: number }) {
  return (
    <Stack gap="sm" aria-busy="true" aria-label="Loading">
      {Array.from({ length: rows }, (_, i) => (
        <Skeleton key={i} height={44} radius="md" />
      ))}
    </Stack>
  );
}
