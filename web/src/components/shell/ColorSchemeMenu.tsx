import { ActionIcon, Menu, useMantineColorScheme, type MantineColorScheme } from '@mantine/core';
import { IconCheck, IconDeviceDesktop, IconMoon, IconSun } from '@tabler/icons-react';

const CHOICES: { value: MantineColorScheme; label: string; icon: typeof IconSun }[] = [
  { value: 'light', label: 'Light', icon: IconSun },
  { value: 'dark', label: 'Dark', icon: IconMoon },
  { value: 'auto', label: 'System', icon: IconDeviceDesktop },
];

/**
 * The header's colour scheme menu: light, dark, or the system's setting (prefers-color-scheme, the
 * default). Mantine's manager keeps the choice in localStorage (see app/App.tsx).
 */
export function ColorSchemeMenu() {
  const { colorScheme, setColorScheme } = useMantineColorScheme();
  const current = CHOICES.find((c) => c.value === colorScheme) ?? CHOICES[2];
  const Icon = current.icon;
  return (
    <Menu position="bottom-end" width={170} withinPortal>
      <Menu.Target>
        <ActionIcon
          variant="default"
          size={34}
          aria-label={`Colour scheme: ${current.label}`}
          data-testid="color-scheme"
          data-scheme={current.value}
        >
          <Icon size={18} stroke={1.6} />
        </ActionIcon>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>Colour scheme</Menu.Label>
        {CHOICES.map((c) => (
          <Menu.Item
            key={c.value}
            leftSection={<c.icon size={16} />}
            rightSection={c.value === colorScheme ? <IconCheck size={14} aria-label="chosen" /> : null}
            onClick={() => setColorScheme(c.value)}
          >
            {c.label}
          </Menu.Item>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}
