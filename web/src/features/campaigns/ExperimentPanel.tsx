import { Button, Group, Paper, Progress, Stack, Text, Title } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { IconTrophy } from '@tabler/icons-react';
import { useState } from 'react';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { DataTable } from '../../components/DataTable';
import { notifySuccess } from '../../components/notify';
import { StatusBadge } from '../../components/StatusBadge';
import {
  campaignKeys,
  pickWinner,
  type Campaign,
  type CampaignStats,
  type ExperimentStats,
  type VariantStats,
} from './api';
import { metricWords, significance, waitWords } from './experimentWords';
import { inLocalZone } from './status';

const pct = (n: number) => `${n.toFixed(n % 1 === 0 ? 0 : 2)} %`;
const points = (n: number) => `${n > 0 ? '+' : n < 0 ? '−' : ''}${Math.abs(n).toFixed(n % 1 === 0 ? 0 : 2)} points`;
const people = (n: number) => `${n.toLocaleString()} ${n === 1 ? 'contact' : 'contacts'}`;

/** Where the test stands, in words ("Testing", "Waiting for the winner — chosen automatically at …", …). */
export function phaseWords(e: ExperimentStats): string {
  switch (e.phase) {
    case 'draft':
      return 'Not started';
    case 'test':
      if (e.testPercent >= 100) return 'Testing: a pure split, each variant goes to its share of the audience';
      return e.winner
        ? `Testing: variant ${e.winner} goes to the rest once the test mail is out`
        : 'Testing: each variant goes to its test group';
    case 'waiting':
      return e.winnerDueAt
        ? `Waiting for the winner — chosen automatically at ${inLocalZone(e.winnerDueAt)}`
        : 'Waiting for the winner';
    case 'winner':
      return `Sending the winner${e.winner ? `, variant ${e.winner},` : ''} to the rest`;
    case 'done':
      return 'Done';
  }
}

/** How the winner was chosen, or null before. */
function winnerWords(e: ExperimentStats): string | null {
  if (!e.winner) return null;
  const when = e.winnerChosenAt ? ` on ${inLocalZone(e.winnerChosenAt)}` : '';
  return e.winnerChosenBy === 'manual'
    ? `Variant ${e.winner} won: picked by hand${when}.`
    : `Variant ${e.winner} won: chosen automatically${when}, with the most ${metricWords(e.metric)}.`;
}

/** The holdout beside everyone mailed: its conversion rate, the mailed contacts' and the lift in points. */
function HoldoutLine({ e }: { e: ExperimentStats }) {
  const h = e.holdout;
  if (!h) return null;
  const held = `The holdout, ${people(h.contacts)} (${e.holdoutPercent} %), got no mail.`;
  return (
    <Text size="sm" data-testid="holdout">
      {held}{' '}
      {h.conversionRate === null || h.mailedConversionRate === null || h.liftPoints === null
        ? 'With an event as the metric, the report compares their conversions with those of the mailed contacts.'
        : `${pct(h.conversionRate)} of them converted, against ${pct(h.mailedConversionRate)} of the mailed contacts: the mail lifted conversions by ${points(h.liftPoints)} (${significance(h.pValue)}).`}
    </Text>
  );
}

/**
 * The A/B test of a campaign's report: its phase in words, a row per variant (test group, sent, human
 * opens and clicks or conversions, the rate on the metric with a bar and whether its gap to the leader
 * is significant), the leader and the winner marked, "Pick as winner" while the test runs, and the
 * holdout's conversions beside the mailed contacts'.
 */
export function ExperimentPanel({
  projectId,
  campaign,
  stats,
}: {
  projectId: string;
  campaign: Campaign;
  stats: CampaignStats;
}) {
  const qc = useQueryClient();
  const [picking, setPicking] = useState<string | null>(null);
  const e = stats.experiment;
  if (!e || !stats.variants) return null;
  const event = e.metric.startsWith('event:');
  const canPick =
    campaign.status === 'SENDING' && (e.phase === 'test' || e.phase === 'waiting') && !e.winner && e.testPercent < 100;
  const subjectOf = (key: string) => campaign.variants?.find((v) => v.key === key)?.subject ?? campaign.subject;
  const won = winnerWords(e);
  // The API's leader takes ties (and no data) to the earliest variant: marked only when it is ahead.
  const lead = stats.variants.find((v) => v.key === e.leader);
  const leader = lead && stats.variants.every((v) => v === lead || v.rate < lead.rate) ? lead.key : null;
  return (
    <Paper p="md" data-testid="experiment" data-phase={e.phase} data-winner={e.winner ?? undefined}>
      <Stack gap="sm">
        <Group justify="space-between" align="baseline">
          <Title order={3} size="h5">
            A/B test
          </Title>
          <Text size="sm" c="dimmed">
            {e.testPercent >= 100 ? 'Pure split' : `Test share ${e.testPercent} %`}
            {e.holdoutPercent ? ` · holdout ${e.holdoutPercent} %` : ''} · winner on {metricWords(e.metric)}
            {e.testPercent < 100 ? ` after ${waitWords(e.waitMinutes)}` : ''}
          </Text>
        </Group>
        <Text fw={600} data-testid="experiment-phase">
          {phaseWords(e)}
        </Text>
        {won && (
          <Group gap={6} wrap="nowrap" align="flex-start" data-testid="experiment-winner">
            <IconTrophy size={18} aria-hidden color="var(--mantine-color-yellow-8)" style={{ flexShrink: 0 }} />
            <Text size="sm">{won}</Text>
          </Group>
        )}
        <DataTable<VariantStats>
          caption="Variants"
          rows={stats.variants}
          rowKey={(v) => v.key}
          rowLabel={(v) => v.key}
          minWidth={760}
          columns={[
            {
              key: 'variant',
              header: 'Variant',
              render: (v) => (
                <Stack gap={4} align="flex-start">
                  <Group gap={6}>
                    <Text fw={700}>{v.key}</Text>
                    {e.winner === v.key && (
                      <StatusBadge tone="success" data-mark="winner">
                        {e.winnerChosenBy === 'manual' ? 'Winner, picked by hand' : 'Winner, chosen automatically'}
                      </StatusBadge>
                    )}
                    {leader === v.key && e.winner !== v.key && (
                      <StatusBadge tone="warning" data-mark="leader">
                        Leading
                      </StatusBadge>
                    )}
                  </Group>
                  <Text size="xs" c="dimmed" lineClamp={2} maw={260}>
                    {subjectOf(v.key)}
                  </Text>
                  {canPick && (
                    <Button
                      size="compact-xs"
                      variant="default"
                      onClick={() => setPicking(v.key)}
                      aria-label={`Pick ${v.key} as winner`}
                    >
                      Pick as winner
                    </Button>
                  )}
                </Stack>
              ),
            },
            { key: 'contacts', header: 'Group', align: 'right', render: (v) => v.contacts.toLocaleString() },
            { key: 'sent', header: 'Sent', align: 'right', render: (v) => v.sent.toLocaleString() },
            { key: 'opens', header: 'Human opens', align: 'right', render: (v) => v.humanOpens.toLocaleString() },
            { key: 'clicks', header: 'Human clicks', align: 'right', render: (v) => v.humanClicks.toLocaleString() },
            ...(event
              ? [
                  {
                    key: 'conversions',
                    header: 'Conversions',
                    align: 'right' as const,
                    render: (v: VariantStats) => (v.conversions ?? 0).toLocaleString(),
                  },
                ]
              : []),
            {
              key: 'rate',
              header: 'Rate',
              width: 150,
              render: (v) => (
                <Stack gap={4}>
                  <Text size="sm" fw={600} data-rate={v.rate}>
                    {pct(v.rate)}
                  </Text>
                  <Progress value={v.rate} size="sm" aria-label={`Rate of ${v.key}: ${pct(v.rate)}`} />
                </Stack>
              ),
            },
            {
              key: 'significance',
              header: 'Against the leader',
              width: 170,
              render: (v) =>
                leader === v.key ? (
                  <Text size="sm">The leader</Text>
                ) : (
                  <Text size="sm" c={v.significant ? undefined : 'dimmed'} data-significant={String(v.significant)}>
                    {significance(v.pValue)}
                  </Text>
                ),
            },
          ]}
        />
        <Text size="xs" c="dimmed">
          Rates are of {metricWords(e.metric)} over mail sent. Human opens and clicks leave out machine activity: the
          automatic opens of Apple Mail Privacy Protection and the clicks of link scanners and previews. A gap is
          significant at 95 % when a two-proportion z-test gives a p-value under 0.05.
        </Text>
        <HoldoutLine e={e} />
      </Stack>
      <ConfirmDialog
        opened={picking !== null}
        onClose={() => setPicking(null)}
        title={`Pick variant ${picking ?? ''} as the winner?`}
        confirmLabel={`Pick ${picking ?? ''}`}
        onConfirm={async () => {
          await pickWinner(projectId, campaign.id, picking!);
          void qc.invalidateQueries({ queryKey: campaignKeys.all(projectId) });
          notifySuccess(`Variant ${picking} is the winner: it goes to the rest of the audience.`);
        }}
      >
        <Text size="sm">
          Variant {picking} goes to everyone not in a test group or the holdout
          {e.phase === 'test' ? ', once the test mail is out' : ', starting now'}. The automatic choice is dropped; a
          winner cannot be changed.
        </Text>
      </ConfirmDialog>
    </Paper>
  );
}
