import { Button } from '@mantine/core';
import { IconMapOff } from '@tabler/icons-react';
import { Link } from 'react-router';
import { EmptyState } from './EmptyState';

/** "Not found" for unknown URLs, and for projects the user is not a member of (never "forbidden"). */
export function NotFound({ title = 'Page not found', description }: { title?: string; description?: string }) {
  return (
    <div data-testid="not-found">
      <EmptyState
        icon={<IconMapOff size={28} />}
        title={title}
        description={description ?? 'The address may be mistyped, or what it pointed to was deleted.'}
        action={
          <Button component={Link} to="/" variant="default">
            Go to the dashboard
          </Button>
        }
      />
    </div>
  );
}
