import { Button, Code, CopyButton, Group, Stack, Text } from '@mantine/core';
import type { DomainRecord } from '../../api/types';
import { CopyIconButton } from '../../components/CopyField';
import { DataTable } from '../../components/DataTable';
import { StatusBadge } from '../../components/StatusBadge';
import { TXT_STRING_MAX, quotedTxt } from './txt';

/** What each record does, by its name (DKIM under `_domainkey`, DMARC under `_dmarc`, else SPF). */
function purpose(r: DomainRecord): string {
  if (r.name.includes('._domainkey.')) return 'DKIM: signs your mail';
  if (r.name.startsWith('_dmarc.')) return 'DMARC: policy for receivers';
  return 'SPF: allowed senders';
}

function Value({ record }: { record: DomainRecord }) {
  const long = record.type === 'TXT' && record.value.length > TXT_STRING_MAX;
  return (
    <Stack gap={6}>
      <Group gap={4} wrap="nowrap" align="flex-start">
        <Code className="break-all" style={{ flex: 1 }}>
          {record.value}
        </Code>
        <CopyIconButton value={record.value} label={`Copy value of ${record.name}`} />
      </Group>
      {long && (
        <Group gap={6} wrap="wrap">
          <Text size="xs" c="dimmed">
            Over 255 characters. Provider wants it split?
          </Text>
          <CopyButton value={quotedTxt(record.value)}>
            {({ copied, copy }) => (
              <Button size="compact-xs" variant="default" onClick={copy} data-testid="copy-split">
                {copied ? 'Copied' : 'Copy as 255-character strings'}
              </Button>
            )}
          </CopyButton>
        </Group>
      )}
    </Stack>
  );
}

/** A domain's DNS records to publish, each with copy buttons and the status of the last check. */
export function RecordsTable({ domain, records }: { domain: string; records: DomainRecord[] }) {
  return (
    <DataTable
      caption={`DNS records for ${domain}`}
      rows={records}
      rowKey={(r) => `${r.type} ${r.name} ${r.value.slice(0, 20)}`}
      rowLabel={(r) => purpose(r).split(':')[0]}
      minWidth={760}
      columns={[
        {
          key: 'type',
          header: 'Type',
          width: 150,
          render: (r) => (
            <Stack gap={2}>
              <Text size="sm" fw={600}>
                {r.type}
              </Text>
              <Text size="xs" c="dimmed">
                {purpose(r)}
              </Text>
            </Stack>
          ),
        },
        {
          key: 'name',
          header: 'Name',
          width: 240,
          render: (r) => (
            <Group gap={4} wrap="nowrap" align="flex-start">
              <Code className="break-all">{r.name}</Code>
              <CopyIconButton value={r.name} label={`Copy name ${r.name}`} />
            </Group>
          ),
        },
        { key: 'value', header: 'Value', render: (r) => <Value record={r} /> },
        {
          key: 'status',
          header: 'Status',
          width: 120,
          render: (r) =>
            r.status === 'verified' ? (
              <StatusBadge tone="success" data-status="verified">
                found
              </StatusBadge>
            ) : (
              <StatusBadge tone="warning" data-status="pending">
                pending
              </StatusBadge>
            ),
        },
      ]}
    />
  );
}
