/**
 * The "Languages" control above a message's body (loaded lazily by Languages.tsx): the default content
 * and one tab per translation, "Add language" (a common language or any BCP 47 tag), removing one after
 * a confirmation, and the selected translation's subject and sender name. The body below follows the
 * selected tab (the screens switch their body editor to the translation's content).
 */
import {
  ActionIcon,
  Button,
  Group,
  Popover,
  Select,
  SimpleGrid,
  Stack,
  Tabs,
  Text,
  TextInput,
  Tooltip,
} from '@mantine/core';
import { IconLanguage, IconPlus, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import type { BlocksDocument } from './types';
import { languageName, type TranslationDraft, type TranslationDrafts } from './translations';

/** The server keeps at most this many translations. */
const MAX_TRANSLATIONS = 20;

/**
 * A new translation of the default content: a copy of it (the same document for blocks, the same body
 * otherwise), so only the texts need changing.
 */
const copyOf = (d: { subject: string; body: string; blocks: BlocksDocument | null }): TranslationDraft => ({
  subject: d.subject,
  fromName: '',
  body: d.body,
  blocks: d.blocks ? (structuredClone(d.blocks) as BlocksDocument) : null,
});

/** The canonical form of a BCP 47 tag (`pt-br` → `pt-BR`, `pt_BR` → `pt-BR`), or null when it is none. */
function canonicalTag(input: string): string | null {
  const s = input.trim().replace(/_/g, '-');
  if (!s) return null;
  try {
    return Intl.getCanonicalLocales(s)[0] ?? null;
  } catch {
    return null;
  }
}

/** The languages offered first when adding one (Pigeon's footer and pages ship in the first seven). */
const COMMON_LANGUAGES = [
  'en',
  'de',
  'fr',
  'es',
  'pt',
  'pt-BR',
  'it',
  'nl',
  'pl',
  'sv',
  'da',
  'nb',
  'fi',
  'cs',
  'ja',
  'zh-Hans',
  'ko',
  'tr',
  'ar',
];

export interface LanguagesBarProps {
  drafts: TranslationDrafts;
  /** The selected translation's tag; null: the default content. */
  active: string | null;
  onActive: (tag: string | null) => void;
  /** The translations changed (one added, removed or edited), and the tab to show then. */
  onDrafts: (drafts: TranslationDrafts, active: string | null) => void;
  /** The default content: a new translation starts as a copy of it. */
  base: { subject: string; body: string; blocks: BlocksDocument | null };
  /** Why no language can be added here (a campaign with an A/B test), or null. */
  blocked: string | null;
  /** The default sender name, shown where a translation keeps it. */
  defaultFromName: string;
  /** The server's or the form's message for a field path such as `translations.de.subject`. */
  error?: (field: string) => string | undefined;
}

const DEFAULT_TAB = '__default';

/** "Add language": a common language, or any other tag typed in. */
function AddLanguage({ taken, onAdd }: { taken: string[]; onAdd: (tag: string) => void }) {
  const [open, setOpen] = useState(false);
  const [picked, setPicked] = useState<string | null>(null);
  const [typed, setTyped] = useState('');
  const [error, setError] = useState<string | null>(null);
  const choices = COMMON_LANGUAGES.filter((t) => !taken.includes(t)).map((t) => ({
    value: t,
    label: `${languageName(t)} (${t})`,
  }));
  const add = () => {
    const raw = typed.trim() || picked || '';
    const tag = canonicalTag(raw);
    if (!tag)
      return setError(
        raw
          ? `"${raw}" is not a language tag: write one such as de, fr-CA or pt-BR.`
          : 'Choose a language or type its tag.',
      );
    if (taken.includes(tag)) return setError(`${languageName(tag)} is already there.`);
    onAdd(tag);
    setOpen(false);
    setPicked(null);
    setTyped('');
    setError(null);
  };
  return (
    <Popover opened={open} onChange={setOpen} position="bottom-start" width={320} trapFocus withinPortal>
      <Popover.Target>
        <Button
          variant="default"
          size="compact-sm"
          leftSection={<IconPlus size={14} />}
          onClick={() => setOpen((o) => !o)}
        >
          Add language
        </Button>
      </Popover.Target>
      <Popover.Dropdown>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            e.stopPropagation();
            add();
          }}
        >
          <Stack gap="xs">
            <Select
              label="Language"
              placeholder="Choose a language"
              searchable
              data={choices}
              value={picked}
              onChange={(t) => {
                setPicked(t);
                setError(null);
              }}
              comboboxProps={{ withinPortal: false }}
            />
            <TextInput
              label="Or another language tag"
              description="BCP 47, such as fr-CA or zh-Hant."
              value={typed}
              onChange={(e) => {
                setTyped(e.currentTarget.value);
                setError(null);
              }}
              error={error}
            />
            <Text size="xs" c="dimmed">
              The translation starts as a copy of the default content: change its texts.
            </Text>
            <Group justify="flex-end">
              <Button type="submit" size="compact-md">
                Add
              </Button>
            </Group>
          </Stack>
        </form>
      </Popover.Dropdown>
    </Popover>
  );
}

export function LanguagesBar(p: LanguagesBarProps) {
  const [removing, setRemoving] = useState<string | null>(null);
  const change = (tag: string, patch: Partial<TranslationDraft>) =>
    p.onDrafts({ ...p.drafts, [tag]: { ...p.drafts[tag], ...patch } }, p.active);
  const add = (tag: string) => p.onDrafts({ ...p.drafts, [tag]: copyOf(p.base) }, tag);
  const remove = (tag: string) =>
    p.onDrafts(Object.fromEntries(Object.entries(p.drafts).filter(([t]) => t !== tag)), null);
  const tags = Object.keys(p.drafts);
  const draft = p.active ? p.drafts[p.active] : undefined;
  const name = p.active ? languageName(p.active) : '';
  return (
    <Stack gap="xs" data-testid="languages">
      <Group justify="space-between" align="center" gap="xs">
        <Group gap={6}>
          <IconLanguage size={18} aria-hidden />
          <Text size="sm" fw={500} id="languages-label">
            Languages
          </Text>
        </Group>
        {p.blocked ? null : tags.length < MAX_TRANSLATIONS ? (
          <AddLanguage taken={tags} onAdd={add} />
        ) : (
          <Text size="xs" c="dimmed">
            {MAX_TRANSLATIONS} languages at most.
          </Text>
        )}
      </Group>
      {p.blocked ? (
        <Text size="sm" c="dimmed" data-testid="languages-blocked">
          {p.blocked}
        </Text>
      ) : tags.length === 0 ? (
        <Text size="sm" c="dimmed">
          One language for everyone. Add a translation and each contact whose locale matches it gets that one; everyone
          else gets the default content.
        </Text>
      ) : null}
      {tags.length > 0 && (
        <Tabs
          value={p.active ?? DEFAULT_TAB}
          onChange={(t) => p.onActive(!t || t === DEFAULT_TAB ? null : t)}
          keepMounted={false}
        >
          <Tabs.List aria-labelledby="languages-label">
            <Tabs.Tab value={DEFAULT_TAB}>Default</Tabs.Tab>
            {tags.map((t) => (
              <Tabs.Tab key={t} value={t} data-tag={t}>
                {languageName(t)} ({t})
              </Tabs.Tab>
            ))}
          </Tabs.List>
        </Tabs>
      )}
      {p.active && draft && (
        <Stack gap="xs" data-testid="translation-fields">
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md" verticalSpacing="xs">
            <TextInput
              label={`Subject in ${name}`}
              withAsterisk
              value={draft.subject}
              onChange={(e) => change(p.active!, { subject: e.currentTarget.value })}
              error={p.error?.(`translations.${p.active}.subject`)}
            />
            <TextInput
              label={`From name in ${name}`}
              placeholder={p.defaultFromName || 'As the default'}
              description="Empty: the default's."
              value={draft.fromName}
              onChange={(e) => change(p.active!, { fromName: e.currentTarget.value })}
              error={p.error?.(`translations.${p.active}.fromName`)}
            />
          </SimpleGrid>
          <Group justify="space-between" gap="xs">
            <Text size="xs" c="dimmed">
              The body below and the preview are the {name} version.
            </Text>
            <Tooltip label={`Remove ${name}`}>
              <ActionIcon
                variant="subtle"
                color="red"
                aria-label={`Remove ${name}`}
                onClick={() => setRemoving(p.active)}
              >
                <IconTrash size={16} />
              </ActionIcon>
            </Tooltip>
          </Group>
        </Stack>
      )}
      <ConfirmDialog
        opened={removing !== null}
        onClose={() => setRemoving(null)}
        title={`Remove ${removing ? languageName(removing) : ''}?`}
        confirmLabel="Remove"
        danger
        onConfirm={async () => {
          if (removing) remove(removing);
        }}
      >
        Its subject, sender name and body are dropped when you save; contacts of that language then get the default
        content.
      </ConfirmDialog>
    </Stack>
  );
}
