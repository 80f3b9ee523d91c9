import { ActionIcon, Button, Group, Popover, TextInput, Tooltip } from '@mantine/core';
import {
  IconBold,
  IconItalic,
  IconLink,
  IconList,
  IconListNumbers,
  IconStrikethrough,
  IconUnderline,
  IconUnlink,
} from '@tabler/icons-react';
import type { Editor } from '@tiptap/react';
import { useState, type ReactNode } from 'react';

/** One toggle of the toolbar: a labelled icon button showing whether its mark or list is on. */
function Toggle(props: { label: string; active: boolean; onClick: () => void; children: ReactNode }) {
  return (
    <Tooltip label={props.label} withArrow openDelay={400}>
      <ActionIcon
        variant={props.active ? 'light' : 'subtle'}
        color={props.active ? undefined : 'gray'}
        aria-label={props.label}
        aria-pressed={props.active}
        onMouseDown={(e) => e.preventDefault()}
        onClick={props.onClick}
      >
        {props.children}
      </ActionIcon>
    </Tooltip>
  );
}

/** The link control: a small form for the address of the selected text's link. */
function LinkControl({ editor }: { editor: Editor }) {
  const [opened, setOpened] = useState(false);
  const [href, setHref] = useState('');
  const open = () => {
    setHref((editor.getAttributes('link').href as string | undefined) ?? 'https://');
    setOpened(true);
  };
  const save = () => {
    const chain = editor.chain().focus().extendMarkRange('link');
    if (href.trim() && href.trim() !== 'https://') chain.setLink({ href: href.trim() }).run();
    else chain.unsetLink().run();
    setOpened(false);
  };
  return (
    <Popover opened={opened} onChange={setOpened} trapFocus withArrow position="bottom-start">
      <Popover.Target>
        <ActionIcon
          variant={editor.isActive('link') ? 'light' : 'subtle'}
          color={editor.isActive('link') ? undefined : 'gray'}
          aria-label="Link"
          onMouseDown={(e) => e.preventDefault()}
          onClick={open}
        >
          <IconLink size={16} />
        </ActionIcon>
      </Popover.Target>
      <Popover.Dropdown>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            save();
          }}
        >
          <Group gap="xs" align="end">
            <TextInput label="Link address" value={href} onChange={(e) => setHref(e.currentTarget.value)} w={260} />
            <Button type="submit" size="sm">
              Save link
            </Button>
          </Group>
        </form>
      </Popover.Dropdown>
    </Popover>
  );
}

/**
 * The rich-text toolbar of a text or footer block: bold, italic, underline, strikethrough, lists and
 * links, the marks the blocks schema allows. Buttons keep the text's selection (mousedown is not
 * allowed to take the focus from the editor).
 */
export function RichTextToolbar({ editor }: { editor: Editor }) {
  const run = (f: (c: ReturnType<Editor['chain']>) => ReturnType<Editor['chain']>) => () =>
    f(editor.chain().focus()).run();
  return (
    <Group gap={4} role="toolbar" aria-label="Text formatting" p={4}>
      <Toggle label="Bold" active={editor.isActive('bold')} onClick={run((c) => c.toggleBold())}>
        <IconBold size={16} />
      </Toggle>
      <Toggle label="Italic" active={editor.isActive('italic')} onClick={run((c) => c.toggleItalic())}>
        <IconItalic size={16} />
      </Toggle>
      <Toggle label="Underline" active={editor.isActive('underline')} onClick={run((c) => c.toggleUnderline())}>
        <IconUnderline size={16} />
      </Toggle>
      <Toggle label="Strikethrough" active={editor.isActive('strike')} onClick={run((c) => c.toggleStrike())}>
        <IconStrikethrough size={16} />
      </Toggle>
      <Toggle label="Bulleted list" active={editor.isActive('bulletList')} onClick={run((c) => c.toggleBulletList())}>
        <IconList size={16} />
      </Toggle>
      <Toggle label="Numbered list" active={editor.isActive('orderedList')} onClick={run((c) => c.toggleOrderedList())}>
        <IconListNumbers size={16} />
      </Toggle>
      <LinkControl editor={editor} />
      <Toggle label="Remove link" active={false} onClick={run((c) => c.extendMarkRange('link').unsetLink())}>
        <IconUnlink size={16} />
      </Toggle>
    </Group>
  );
}
