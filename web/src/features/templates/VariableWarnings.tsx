import { Alert, Code, List, Text } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useContactFields } from '../contacts/api';
import type { TemplatePreview } from './api';
import { variableTag } from './VariablePicker';

interface VariableWarningsProps {
  projectId: string;
  /** What the server's preview found matching nothing in the sample contact or the reserved set. */
  unknown: TemplatePreview['unknownVariables'];
}

/**
 * The variables of the template that match nothing (most often a misspelling), each with the name it
 * most likely meant: they render empty. A field some contacts of the project have (the fields
 * inventory) is not listed even when the sample contact lacks it: the editor need not pick a contact
 * holding every field.
 */
export function VariableWarnings({ projectId, unknown: all }: VariableWarningsProps) {
  const fields = useContactFields(projectId);
  const known = new Set((fields.data ?? []).filter((f) => !f.standard).map((f) => f.field));
  const unknown = all.filter((u) => !known.has(u.name));
  if (!unknown.length) return null;
  return (
    <Alert color="yellow" variant="light" icon={<IconAlertTriangle size={16} />} data-testid="unknown-variables">
      <Text size="sm" fw={600}>
        Variables that match nothing
      </Text>
      <Text size="sm" mb={4}>
        They match no contact field and no variable every email has, so they render empty, unless a workflow&apos;s
        event or the <Code>data</Code> of <Code>/v1/send</Code> brings them:
      </Text>
      <List size="sm" spacing={2}>
        {unknown.map((u) => (
          <List.Item key={u.name}>
            <Code>{variableTag(u.name)}</Code>
            {u.suggestion && (
              <>
                {' '}
                — did you mean <Code>{u.suggestion}</Code>?
              </>
            )}
          </List.Item>
        ))}
      </List>
    </Alert>
  );
}
