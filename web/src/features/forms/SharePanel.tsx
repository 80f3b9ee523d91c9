import { Anchor, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { IconExternalLink } from '@tabler/icons-react';
import { CopyField, CopyIconButton } from '../../components/CopyField';
import type { Form } from './api';

/**
 * Where a saved form is used: its hosted page (a link for a bio or a QR code) and the HTML snippet
 * to paste into any site (a plain form posting to Pigeon, honeypot included), with its counts.
 */
export function SharePanel({ form }: { form: Form }) {
  return (
    <Paper p="md">
      <Stack gap="sm">
        <Title order={2} size="h4">
          Share
        </Title>
        <Text size="sm" c="dimmed">
          {form.submissions.toLocaleString()} submission{form.submissions === 1 ? '' : 's'}
          {form.doubleOptIn && `, ${form.confirmations.toLocaleString()} confirmed by mail`}.
        </Text>
        <div>
          <Text size="sm" fw={500} mb={4}>
            Hosted page
          </Text>
          <Group gap="xs" wrap="nowrap">
            <Anchor href={form.url} target="_blank" rel="noreferrer" size="sm" style={{ wordBreak: 'break-all' }}>
              {form.url} <IconExternalLink size={14} aria-hidden />
            </Anchor>
            <CopyIconButton value={form.url} label="Copy the hosted page's address" />
          </Group>
        </div>
        <CopyField label="Embed snippet" value={form.embedHtml} testId="embed-snippet" />
        <Text size="xs" c="dimmed">
          Paste it where the form should appear; style it with your site's CSS. It posts to Pigeon, which shows its own
          success page or goes to your redirect address.
        </Text>
      </Stack>
    </Paper>
  );
}
