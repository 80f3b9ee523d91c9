import { Code, Group, Paper, Stack, Text } from '@mantine/core';
import { CopyField, CopyIconButton } from '../../components/CopyField';

/** `curl` of `POST /v1/send` with template `id` and an example of `data` (the variables it fills). */
export function sendSnippet(origin: string, id: string): string {
  return [
    `curl -X POST ${origin}/v1/send \\`,
    `  -H "Authorization: Bearer $PIGEON_SECRET_KEY" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d '{"to":"someone@example.org","template":"${id}","data":{"firstName":"Ada"}}'`,
  ].join('\n');
}

/**
 * How to send a saved template from code: its id, and a copyable `/v1/send` call with it, whose
 * `data` fills the template's variables (over the contact's own data).
 */
export function SendSnippet({ templateId }: { templateId: string }) {
  const snippet = sendSnippet(window.location.origin, templateId);
  return (
    <Paper p="lg" data-testid="send-snippet">
      <Stack gap="sm">
        <Text fw={600}>Send it from your app</Text>
        <CopyField label="Template id" value={templateId} testId="template-id" />
        <div>
          <Group justify="space-between" wrap="nowrap" mb={4}>
            <Text size="sm" fw={500}>
              With <Code>/v1/send</Code> and the secret key; <Code>data</Code> fills the variables
            </Text>
            <CopyIconButton value={snippet} label="Copy the send command" />
          </Group>
          <Code block className="break-all" style={{ whiteSpace: 'pre-wrap' }} data-testid="send-command">
            {snippet}
          </Code>
        </div>
      </Stack>
    </Paper>
  );
}
