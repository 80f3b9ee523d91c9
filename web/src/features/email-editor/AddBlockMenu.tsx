import { Button, Menu } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { BLOCK_KINDS } from './catalog';
import { fits } from './doc';

/**
 * The "Add block" menu of a list; offers only what the list may hold (a column takes no columns and
 * no logic; a condition or a loop no nested logic).
 */
export function AddBlockMenu({
  kind,
  onAdd,
  compact,
}: {
  kind: 'any' | 'row' | 'leaf';
  onAdd: (kindKey: string) => void;
  compact?: boolean;
}) {
  return (
    <Menu position="bottom-start" withinPortal>
      <Menu.Target>
        <Button
          variant={compact ? 'subtle' : 'light'}
          size={compact ? 'compact-sm' : 'sm'}
          leftSection={<IconPlus size={16} />}
          style={{ alignSelf: 'flex-start' }}
        >
          Add block
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        {BLOCK_KINDS.filter((k) => fits(k.type, kind)).map((k) => (
          <Menu.Item key={k.key} leftSection={<k.icon size={16} />} onClick={() => onAdd(k.key)}>
            {k.label}
          </Menu.Item>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}
