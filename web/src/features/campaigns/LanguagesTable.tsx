import { Paper, Title } from '@mantine/core';
import { DataTable } from '../../components/DataTable';
import { languageName } from '../email-editor/translations';
import type { CampaignStats } from './api';

const pct = (n: number) => `${n.toFixed(n % 1 === 0 ? 0 : 2)} %`;

type LanguageRow = NonNullable<CampaignStats['languages']>[number];

/**
 * "By language": the counts of each translation (and of the default content) of a translated
 * campaign; rates over delivered (over sent when no delivery reports came, as the tiles above).
 */
export function LanguagesTable({ rows, reported }: { rows: LanguageRow[]; reported: boolean }) {
  const of = (n: number, r: LanguageRow) => {
    const base = (reported && r.delivered) || r.sent;
    return base ? pct(Math.round((n / base) * 10000) / 100) : '–';
  };
  const num = (n: number) => n.toLocaleString();
  return (
    <Paper p="md" data-testid="languages-report">
      <Title order={3} size="h5" mb="sm">
        By language
      </Title>
      <DataTable<LanguageRow>
        caption="Counts by the language each email went out in"
        rows={rows}
        rowKey={(r) => r.locale ?? ''}
        rowLabel={(r) => r.locale ?? 'default'}
        minWidth={520}
        columns={[
          {
            key: 'language',
            header: 'Language',
            render: (r) => (r.locale ? `${languageName(r.locale)} (${r.locale})` : 'Default content'),
          },
          { key: 'sent', header: 'Sent', align: 'right', render: (r) => num(r.sent) },
          { key: 'delivered', header: 'Delivered', align: 'right', render: (r) => (reported ? num(r.delivered) : '–') },
          { key: 'opened', header: 'Opened', align: 'right', render: (r) => of(r.opened, r) },
          { key: 'clicked', header: 'Clicked', align: 'right', render: (r) => of(r.clicked, r) },
          { key: 'bounced', header: 'Bounced', align: 'right', render: (r) => num(r.bounced) },
        ]}
      />
    </Paper>
  );
}
