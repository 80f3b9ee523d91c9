import { Button, Group, Popover, Stack, Text, TextInput, Tooltip } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { IconCopy, IconSend, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { notifyError, notifySuccess } from '../../components/notify';
import { languageName } from '../email-editor/translations';
import { useProject } from '../projects/ProjectContext';
import { duplicateTemplate, sendTemplateTest, templateKeys, type Template } from './api';
import { DeleteTemplateDialog } from './DeleteTemplateDialog';

interface SavedActionsProps {
  template: Template;
  dirty: boolean;
  /** The preview's sample contact: its data fills the test. */
  contactId: string | null;
  /** The language tab on screen: the test carries that translation (null: the default content). */
  locale: string | null;
  /** Called before the page leaves by itself (after a delete), so the unsaved-changes guard does not ask. */
  beforeLeave: () => void;
  /** Shows a refused test's field problems (a sender domain not verified) at the form's fields. */
  onRefused: (err: unknown) => void;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The header's actions on a saved template: send a test (to oneself or any address), duplicate, delete. */
export function SavedActions({ template, dirty, contactId, locale, beforeLeave, onRefused }: SavedActionsProps) {
  const { project } = useProject();
  const navigate = useNavigate();
  const qc = useQueryClient();
  const [testing, setTesting] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [open, setOpen] = useState(false);
  const [to, setTo] = useState('');
  const toError = to.trim() && !EMAIL.test(to.trim()) ? 'Enter an email address' : undefined;
  const sendTest = async () => {
    if (toError) return;
    setTesting(true);
    try {
      const r = await sendTemplateTest(project.id, template.id, contactId, to.trim() || undefined, locale);
      setOpen(false);
      notifySuccess(
        `Test${locale ? ` of the ${languageName(locale)} version` : ''} sent to ${r.data.email} with ${contactId ? "the sample contact's" : 'your own contact'} data: it arrives with [TEST] before the subject.`,
      );
    } catch (err) {
      onRefused(err);
      notifyError(err, 'The test was not sent');
    } finally {
      setTesting(false);
    }
  };
  const duplicate = async () => {
    try {
      const copy = await duplicateTemplate(project.id, template.id);
      await qc.invalidateQueries({ queryKey: templateKeys.all(project.id) });
      notifySuccess(`Duplicated as ${copy.name}.`);
      void navigate(`/p/${project.id}/templates/${copy.id}`);
    } catch (err) {
      notifyError(err, 'Could not duplicate the template');
    }
  };
  const testButton = (
    <Button leftSection={<IconSend size={16} />} onClick={() => setOpen((o) => !o)} disabled={dirty}>
      Send test
    </Button>
  );
  return (
    <>
      {dirty ? (
        <Tooltip label="Save first: the test sends the saved template">
          <span>{testButton}</span>
        </Tooltip>
      ) : (
        <Popover opened={open} onChange={setOpen} position="bottom-end" width={320} trapFocus withinPortal>
          <Popover.Target>{testButton}</Popover.Target>
          <Popover.Dropdown>
            <form
              onSubmit={(e) => {
                e.preventDefault();
                void sendTest();
              }}
            >
              <Stack gap="xs">
                <TextInput
                  label="Send the test to"
                  placeholder="Empty: to you"
                  type="email"
                  value={to}
                  error={toError}
                  onChange={(e) => setTo(e.currentTarget.value)}
                />
                <Text size="xs" c="dimmed">
                  {locale ? `The ${languageName(locale)} version. ` : ''}The subject starts with [TEST]; the recipient
                  is not added to your contacts.
                </Text>
                <Group justify="flex-end">
                  <Button type="submit" size="compact-md" loading={testing} leftSection={<IconSend size={14} />}>
                    {to.trim() ? 'Send test' : 'Send test to me'}
                  </Button>
                </Group>
              </Stack>
            </form>
          </Popover.Dropdown>
        </Popover>
      )}
      <Button variant="default" leftSection={<IconCopy size={16} />} onClick={() => void duplicate()}>
        Duplicate
      </Button>
      <Button variant="default" color="red" leftSection={<IconTrash size={16} />} onClick={() => setDeleting(true)}>
        Delete
      </Button>
      <DeleteTemplateDialog
        projectId={project.id}
        template={deleting ? template : null}
        onClose={() => setDeleting(false)}
        onDeleted={() => {
          beforeLeave();
          void navigate(`/p/${project.id}/templates`, { replace: true });
        }}
      />
    </>
  );
}
