import { NativeSelect, Paper, Group, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { usePreview } from '../../components/PreviewPane';
import { QueryState } from '../../components/QueryState';
import type { Campaign } from './api';
import { sentBodies } from './experiment';
import { ClickMap, ClickMetricSwitch, useCampaignLinks, type ClickMetric } from './ClickMap';

/**
 * The report's "Links" section (`GET /campaigns/:id/links`): the mail with a count on each tracked link
 * (people, unique or all clicks) and the table of every link. An A/B campaign whose variants have bodies
 * of their own picks the body to draw.
 */
export function LinksSection({ projectId, campaign }: { projectId: string; campaign: Campaign }) {
  const links = useCampaignLinks(projectId, campaign.id);
  const [metric, setMetric] = useState<ClickMetric>('humanClicks');
  const bodies = sentBodies(campaign);
  const [bodyKey, setBodyKey] = useState(bodies[0].key);
  const body = bodies.find((b) => b.key === bodyKey) ?? bodies[0];
  // Drawn as the server renders it (Liquid filled for a contact without data, no tracking), so the map
  // reads as the mail does; the raw body until the rendering arrives.
  const preview = usePreview(projectId, {
    subject: campaign.subject,
    body: body.html,
    type: campaign.type,
    contactId: null,
  });
  const html = preview.shown?.html ?? body.html;
  return (
    <Paper p="md" data-testid="campaign-links">
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap" gap="sm">
          <Title order={3} size="h5">
            Links
          </Title>
          <ClickMetricSwitch value={metric} onChange={setMetric} />
        </Group>
        {bodies.length > 1 && (
          <NativeSelect
            label="Mail shown"
            w={{ base: '100%', sm: 340 }}
            value={body.key}
            onChange={(e) => setBodyKey(e.currentTarget.value)}
            data={bodies.map((b) => ({ value: b.key, label: b.label }))}
          />
        )}
        <QueryState query={links}>
          {(d) => <ClickMap html={html} links={d.data} metric={metric} height={480} />}
        </QueryState>
        <Text size="xs" c="dimmed">
          Links are counted where they stand in the mail as sent; links the mail makes per contact add up on their
          place.
        </Text>
      </Stack>
    </Paper>
  );
}
