import { ActionIcon, Code, CopyButton, Group, Text, Tooltip } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';

/** A copy-to-clipboard icon button; `label` names what it copies ("Copy secret key"). */
export function CopyIconButton({ value, label }: { value: string; label: string }) {
  return (
    <CopyButton value={value} timeout={2000}>
      {({ copied, copy }) => (
        <Tooltip label={copied ? 'Copied' : label} withArrow position="left">
          <ActionIcon variant="subtle" color={copied ? 'teal' : 'gray'} onClick={copy} aria-label={label}>
            {copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
          </ActionIcon>
        </Tooltip>
      )}
    </CopyButton>
  );
}

interface CopyFieldProps {
  /** What the value is, shown above it and in the button's name. */
  label: string;
  value: string;
  /** Test hook: `data-testid` of the value. */
  testId?: string;
}

/** A labelled value in monospace (a key, a DNS record) with a copy button beside it. */
export function CopyField({ label, value, testId }: CopyFieldProps) {
  return (
    <div>
      <Text size="sm" fw={500} mb={4}>
        {label}
      </Text>
      <Group gap="xs" wrap="nowrap" align="flex-start">
        <Code block className="break-all" style={{ flex: 1, whiteSpace: 'pre-wrap' }} data-testid={testId}>
          {value}
        </Code>
        <CopyIconButton value={value} label={`Copy ${label.toLowerCase()}`} />
      </Group>
    </div>
  );
}
