import { Button, Menu, ScrollArea, Text } from '@mantine/core';
import { IconBraces } from '@tabler/icons-react';
import { useContactFields } from '../contacts/api';
import type { TemplatePreview } from './api';

/** The Liquid output of a variable name, as the picker inserts it. */
export const variableTag = (name: string) => `{{${name}}}`;

interface VariablePickerProps {
  projectId: string;
  /** The reserved variables, as the server's preview lists them (empty until the first preview). */
  reserved: TemplatePreview['reservedVariables'];
  onPick: (tag: string) => void;
}

/**
 * "Insert variable": the project's contact fields (the fields inventory, `GET /contacts/fields`, with
 * how many contacts have each) and the reserved variables every email has; a pick is inserted at the
 * editor's cursor as `{{name}}`.
 */
export function VariablePicker({ projectId, reserved, onPick }: VariablePickerProps) {
  const fields = useContactFields(projectId);
  const custom = (fields.data ?? []).filter((f) => !f.standard);
  return (
    <Menu position="bottom-end" withinPortal shadow="md" width={320} returnFocus={false}>
      <Menu.Target>
        <Button size="xs" variant="default" leftSection={<IconBraces size={14} />}>
          Insert variable
        </Button>
      </Menu.Target>
      <Menu.Dropdown data-testid="variable-menu">
        <ScrollArea.Autosize mah={340} type="auto">
          <Menu.Label>Contact fields</Menu.Label>
          {custom.length === 0 && (
            <Menu.Item disabled>
              {fields.isPending ? 'Loading fields…' : 'No contact has data yet: import or add contacts first'}
            </Menu.Item>
          )}
          {custom.map((f) => (
            <Menu.Item key={f.field} onClick={() => onPick(variableTag(f.field))}>
              <Text size="sm" ff="monospace">
                {variableTag(f.field)}
              </Text>
              <Text size="xs" c="dimmed">
                {f.type}, {f.coverage}% of contacts
              </Text>
            </Menu.Item>
          ))}
          <Menu.Divider />
          <Menu.Label>Every email</Menu.Label>
          {reserved.map((r) => (
            <Menu.Item
              key={r.name}
              onClick={() => onPick(variableTag(r.name === 'contact' ? 'contact.email' : r.name))}
            >
              <Text size="sm" ff="monospace">
                {variableTag(r.name === 'contact' ? 'contact.email' : r.name)}
              </Text>
              <Text size="xs" c="dimmed">
                {r.description}
              </Text>
            </Menu.Item>
          ))}
        </ScrollArea.Autosize>
      </Menu.Dropdown>
    </Menu>
  );
}
