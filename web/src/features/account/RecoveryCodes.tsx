import { Alert, Button, CopyButton, Group, SimpleGrid, Stack, Text } from '@mantine/core';

/** Ten recovery codes, shown once: to copy or download, with the sentence that says why. */
export function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const text = codes.join('\n');
  const download = () => {
    const url = URL.createObjectURL(new Blob([`Pigeon recovery codes\n\n${text}\n`], { type: 'text/plain' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = 'pigeon-recovery-codes.txt';
    a.click();
    URL.revokeObjectURL(url);
  };
  return (
    <Stack gap="sm" data-testid="recovery-codes">
      {/* The title as text: Mantine's yellow alert title is under AA contrast. */}
      <Alert color="yellow" variant="light">
        <Text size="sm" fw={600}>
          Save your recovery codes now
        </Text>
        <Text size="sm">
          Each code signs you in once if you lose your phone. They are shown only this once: copy or download them and
          keep them somewhere safe.
        </Text>
      </Alert>
      <SimpleGrid cols={2} spacing="xs" component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
        {codes.map((c) => (
          <Text component="li" key={c} ff="monospace" size="sm">
            {c}
          </Text>
        ))}
      </SimpleGrid>
      <Group gap="sm">
        <CopyButton value={text}>
          {({ copied, copy }) => (
            <Button variant="default" onClick={copy}>
              {copied ? 'Copied' : 'Copy the codes'}
            </Button>
          )}
        </CopyButton>
        <Button variant="default" onClick={download}>
          Download
        </Button>
        <Button onClick={onDone}>I saved them</Button>
      </Group>
    </Stack>
  );
}
