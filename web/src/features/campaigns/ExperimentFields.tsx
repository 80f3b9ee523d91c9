import { Stack, Switch, Title } from '@mantine/core';
import { lazy, Suspense } from 'react';
import { ContentSkeleton } from '../../components/Loading';
import type { ExperimentFieldsProps } from './ExperimentSettings';

// The settings load when the test is switched on: most campaigns are not A/B tests, and their number
// inputs and variant editors would weigh on every composer's first screen.
const ExperimentSettings = lazy(() => import('./ExperimentSettings').then((m) => ({ default: m.ExperimentSettings })));

/**
 * The A/B test of the composer: the switch and, once on, the settings (ExperimentSettings.tsx).
 * Switching it names the `experiment` field as changed, so a server error about it is dropped.
 */
export function ExperimentFields(props: ExperimentFieldsProps) {
  const { value: d, onChange } = props;
  return (
    <Stack gap="sm">
      <Title order={2} size="h4">
        A/B test
      </Title>
      <Switch
        label="Test versions of this email"
        description="Each variant goes to a test group; after a wait, the best one goes to everyone else."
        checked={d.enabled}
        onChange={(e) => onChange({ ...d, enabled: e.currentTarget.checked }, 'experiment')}
      />
      {d.enabled && (
        <Suspense fallback={<ContentSkeleton rows={4} />}>
          <ExperimentSettings {...props} />
        </Suspense>
      )}
    </Stack>
  );
}
