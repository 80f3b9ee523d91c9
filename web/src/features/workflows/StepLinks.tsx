import { Button, Divider, Group, Modal, Stack, Text } from '@mantine/core';
import { IconClick } from '@tabler/icons-react';
import { useState } from 'react';
import { QueryState } from '../../components/QueryState';
import { ClickMap, ClickMetricSwitch, type ClickMetric } from '../campaigns/ClickMap';
import { useTemplate } from '../templates/api';
import type { Step } from './api';
import { useStepLinks } from './statsApi';

const count = (n: number, one: string, many: string) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

/**
 * A SEND_EMAIL step's clicks per tracked link (`GET /workflows/:id/steps/:stepId/links`), in its side
 * panel: each link with the people, emails and clicks it had, and a dialog with the click map (the
 * step's template with a count on each link). The template is drawn as it is now: a link added or moved
 * since the mail went out shifts the badges.
 */
export function StepLinks({ projectId, workflowId, step }: { projectId: string; workflowId: string; step: Step }) {
  const links = useStepLinks(projectId, workflowId, step.id);
  const templateId = step.templateId ?? (step.config.templateId as string | undefined);
  const template = useTemplate(projectId, templateId);
  const [mapOpen, setMapOpen] = useState(false);
  const [metric, setMetric] = useState<ClickMetric>('humanClicks');
  return (
    <Stack gap="xs" data-testid="step-links">
      <Divider label="Clicks per link" labelPosition="left" />
      <QueryState
        query={links}
        isEmpty={(d) => d.data.length === 0}
        empty={
          <Text size="sm" c="dimmed">
            No click on this step&apos;s mail yet.
          </Text>
        }
      >
        {(d) => (
          <Stack gap={6}>
            {d.data.map((l) => (
              <div key={`${l.position ?? '-'} ${l.url}`} data-link-position={l.position ?? ''}>
                <Text size="sm" truncate="end" title={l.url}>
                  {l.url}
                </Text>
                <Text size="xs" c="dimmed">
                  {count(l.humanClicks, 'person', 'people')} · {l.uniqueClicks.toLocaleString()} unique ·{' '}
                  {count(l.clicks, 'click', 'clicks')}
                </Text>
              </div>
            ))}
          </Stack>
        )}
      </QueryState>
      {template.data && (
        <Group>
          <Button variant="default" size="xs" leftSection={<IconClick size={14} />} onClick={() => setMapOpen(true)}>
            Click map
          </Button>
        </Group>
      )}
      <Modal opened={mapOpen} onClose={() => setMapOpen(false)} title={`Clicks on ${step.name}`} size="xl">
        {template.data && links.data && (
          <Stack gap="sm">
            <ClickMetricSwitch value={metric} onChange={setMetric} />
            <ClickMap html={template.data.body} links={links.data.data} metric={metric} height={440} />
          </Stack>
        )}
      </Modal>
    </Stack>
  );
}
