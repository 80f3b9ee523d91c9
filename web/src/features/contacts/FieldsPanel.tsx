import { Badge, Group, Paper, Progress, Stack, Text } from '@mantine/core';
import { IconDatabase } from '@tabler/icons-react';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { QueryState } from '../../components/QueryState';
import { useContactFields, type ContactField } from './api';

const pct = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });

/** One field's coverage as a bar with its percentage. */
function Coverage({ field }: { field: ContactField }) {
  return (
    <Group gap="sm" wrap="nowrap">
      <Progress
        value={field.coverage}
        style={{ flex: 1 }}
        size="lg"
        radius="xl"
        color={field.standard ? 'gray' : 'teal'}
        aria-label={`Coverage of ${field.field}: ${pct.format(field.coverage)} %`}
      />
      <Text size="sm" w={64} ta="right" data-testid="coverage">
        {pct.format(field.coverage)} %
      </Text>
    </Group>
  );
}

/**
 * The fields inventory (`GET /contacts/fields`): every standard and custom field with its inferred
 * type and the share of the project's contacts that have it, as bars.
 */
export function FieldsPanel({ projectId }: { projectId: string }) {
  const fields = useContactFields(projectId);
  return (
    <QueryState query={fields}>
      {(list) => {
        const custom = list.filter((f) => !f.standard);
        return (
          <Stack gap="md">
            <Text size="sm" c="dimmed">
              What your contacts carry, for templates ({'{{plan}}'}) and segment conditions. Coverage is the share of
              this project's contacts that have the field.
            </Text>
            <DataTable<ContactField>
              caption="Contact fields"
              rows={list}
              rowKey={(f) => f.field}
              rowLabel={(f) => f.field}
              columns={[
                {
                  key: 'field',
                  header: 'Field',
                  render: (f) => (
                    <Text size="sm" ff="monospace" fw={500} style={{ wordBreak: 'break-all' }}>
                      {f.field}
                    </Text>
                  ),
                },
                {
                  key: 'type',
                  header: 'Type',
                  width: 140,
                  render: (f) => (
                    <Badge variant="outline" color="gray" data-testid="field-type">
                      {f.type}
                    </Badge>
                  ),
                },
                {
                  key: 'kind',
                  header: 'Kind',
                  width: 110,
                  render: (f) => (
                    <Text size="sm" c="dimmed">
                      {f.standard ? 'standard' : 'custom'}
                    </Text>
                  ),
                },
                { key: 'coverage', header: 'Coverage', width: '40%', render: (f) => <Coverage field={f} /> },
              ]}
            />
            {custom.length === 0 && (
              <Paper>
                <EmptyState
                  icon={<IconDatabase size={28} />}
                  title="No custom fields yet"
                  description="Import a CSV with more columns than email, add data to a contact, or send data with POST /v1/track: each key becomes a field here."
                />
              </Paper>
            )}
          </Stack>
        );
      }}
    </QueryState>
  );
}
