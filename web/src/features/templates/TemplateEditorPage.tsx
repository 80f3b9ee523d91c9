import {
  Button,
  Code,
  Group,
  Input,
  Paper,
  Select,
  SimpleGrid,
  Skeleton,
  Stack,
  Text,
  TextInput,
  Tooltip,
} from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { IconCopy, IconSend, IconTrash } from '@tabler/icons-react';
import { lazy, Suspense, useRef, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { applyServerErrors, FormError, useApiForm } from '../../components/forms';
import { notifyError, notifySuccess } from '../../components/notify';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';
import { useProject } from '../projects/ProjectContext';
import { TopicSelect } from '../topics/TopicSelect';
import {
  createTemplate,
  duplicateTemplate,
  sendTemplateTest,
  templateKeys,
  updateTemplate,
  useTemplate,
  type Template,
} from './api';
import { DeleteTemplateDialog } from './DeleteTemplateDialog';
import { PreviewPane, SyntaxErrorNote, syntaxProblemOf, usePreview } from '../../components/PreviewPane';
import { SendSnippet } from './SendSnippet';
import { emptyValues, inputOf, templateSchema, valuesOf, type TemplateValues } from './templateForm';
import { useUnsavedChangesGuard } from './UnsavedChangesGuard';
import { VariablePicker } from './VariablePicker';
import { VariableWarnings } from './VariableWarnings';

// CodeMirror is the heaviest part of the page: it loads after the form is on screen.
const HtmlEditor = lazy(async () => ({ default: (await import('./HtmlEditor')).HtmlEditor }));

const TYPES = [
  { value: 'TRANSACTIONAL', label: 'Transactional (receipts, resets…)' },
  { value: 'MARKETING', label: 'Marketing (unsubscribe footer added)' },
  { value: 'HEADLESS', label: 'Headless (sent as written, never tracked)' },
];

interface SavedActionsProps {
  template: Template;
  dirty: boolean;
  /** The preview's sample contact: its data fills the test. */
  contactId: string | null;
  /** Called before the page leaves by itself (after a delete), so the unsaved-changes guard does not ask. */
  beforeLeave: () => void;
  /** Shows a refused test's field problems (a sender domain not verified) at the form's fields. */
  onRefused: (err: unknown) => void;
}

/** The header's actions on a saved template: send a test to oneself, duplicate, delete. */
function SavedActions({ template, dirty, contactId, beforeLeave, onRefused }: SavedActionsProps) {
  const { project } = useProject();
  const navigate = useNavigate();
  const qc = useQueryClient();
  const [testing, setTesting] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const sendTest = async () => {
    setTesting(true);
    try {
      const r = await sendTemplateTest(project.id, template.id, contactId);
      notifySuccess(
        `Test sent to ${r.data.email} with ${contactId ? "the sample contact's" : 'your own contact'} data: it arrives with [TEST] before the subject.`,
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
    <Button leftSection={<IconSend size={16} />} onClick={() => void sendTest()} loading={testing} disabled={dirty}>
      Send test to me
    </Button>
  );
  return (
    <>
      {dirty ? (
        <Tooltip label="Save first: the test sends the saved template">
          <span>{testButton}</span>
        </Tooltip>
      ) : (
        testButton
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

/** The form of one template (new when `template` is undefined), with the editor and the live preview. */
function TemplateForm({ template }: { template?: Template }) {
  const { project } = useProject();
  const navigate = useNavigate();
  const qc = useQueryClient();
  const [contactId, setContactId] = useState<string | null>(null);
  const insertAtCursor = useRef<((text: string) => void) | null>(null);
  const { form, onSubmit, mutation, formError } = useApiForm<TemplateValues, Template>({
    initialValues: template ? valuesOf(template) : emptyValues(),
    schema: templateSchema,
    submit: (v) =>
      template ? updateTemplate(project.id, template.id, inputOf(v)) : createTemplate(project.id, inputOf(v)),
    onSuccess: (saved, values) => {
      qc.setQueryData(templateKeys.one(project.id, saved.id), saved);
      void qc.invalidateQueries({ queryKey: templateKeys.all(project.id), predicate: (q) => q.queryKey[3] === 'list' });
      if (template) {
        form.resetDirty(values);
        notifySuccess('Template saved.');
      } else {
        notifySuccess(`${saved.name} created.`);
        guard.allowNext();
        void navigate(`/p/${project.id}/templates/${saved.id}`, { replace: true });
      }
    },
  });
  const v = form.getValues();
  const preview = usePreview(project.id, { subject: v.subject, body: v.body, type: v.type, contactId });
  const problem = syntaxProblemOf(preview.query.error);
  const bodyError = form.errors.body;
  const dirty = form.isDirty();
  const guard = useUnsavedChangesGuard(dirty);

  return (
    <>
      <PageHeader
        title={template ? template.name : 'New template'}
        description="Write the HTML on the left; the right side shows it as Pigeon sends it, with the variables filled from a sample contact."
        actions={
          template ? (
            <SavedActions
              template={template}
              dirty={dirty}
              contactId={contactId}
              beforeLeave={guard.allowNext}
              onRefused={(err) => applyServerErrors(form, err)}
            />
          ) : undefined
        }
      />
      {guard.dialog}
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="lg">
          <Paper p="lg">
            <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md" verticalSpacing="sm">
              <TextInput
                label="Template name"
                description="Only your team sees it."
                withAsterisk
                key={form.key('name')}
                {...form.getInputProps('name')}
              />
              <Select
                label="Type"
                data={TYPES}
                allowDeselect={false}
                key={form.key('type')}
                {...form.getInputProps('type')}
              />
              <TopicSelect
                projectId={project.id}
                type={v.type}
                value={v.topicId}
                onChange={(id) => form.setFieldValue('topicId', id)}
                error={typeof form.errors.topicId === 'string' ? form.errors.topicId : undefined}
              />
              <TextInput
                label="From address"
                description="On a verified domain of this project."
                placeholder="hello@example.com"
                withAsterisk
                key={form.key('from')}
                {...form.getInputProps('from')}
              />
              <TextInput
                label="From name"
                placeholder="Acme"
                key={form.key('fromName')}
                {...form.getInputProps('fromName')}
              />
              <TextInput
                label="Reply-to"
                placeholder="support@example.com (optional)"
                key={form.key('replyTo')}
                {...form.getInputProps('replyTo')}
              />
              <TextInput
                label="Subject"
                placeholder="Welcome, {{firstName}}"
                withAsterisk
                key={form.key('subject')}
                {...form.getInputProps('subject')}
              />
            </SimpleGrid>
            {problem?.field === 'subject' && (
              <Stack mt="sm">
                <SyntaxErrorNote problem={problem} />
              </Stack>
            )}
          </Paper>
          <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
            <div style={{ minWidth: 0 }}>
              <Stack gap="xs">
                <Group justify="space-between" align="flex-end" wrap="nowrap">
                  <Input.Label id="body-label" required>
                    HTML body
                  </Input.Label>
                  <VariablePicker
                    projectId={project.id}
                    reserved={preview.shown?.reservedVariables ?? []}
                    onPick={(tag) => insertAtCursor.current?.(tag)}
                  />
                </Group>
                <Suspense fallback={<Skeleton height={420} />}>
                  <HtmlEditor
                    value={v.body}
                    onChange={(body) => form.setFieldValue('body', body)}
                    label="HTML body"
                    describedBy={problem?.field === 'body' ? 'body-syntax' : bodyError ? 'body-error' : undefined}
                    invalid={Boolean(bodyError) || problem?.field === 'body'}
                    insertRef={insertAtCursor}
                  />
                </Suspense>
                {/* The server's refusal of a save says what the syntax note already shows: one of them is enough. */}
                {bodyError && problem?.field !== 'body' && (
                  <Text id="body-error" size="sm" c="red.9">
                    {bodyError}
                  </Text>
                )}
                {problem?.field === 'body' && (
                  <div id="body-syntax">
                    <SyntaxErrorNote problem={problem} />
                  </div>
                )}
                {!problem && (
                  <VariableWarnings projectId={project.id} unknown={preview.shown?.unknownVariables ?? []} />
                )}
                <Text size="xs" c="dimmed">
                  Event data: in a workflow, <Code fz="xs">{'{{plan}}'}</Code> also reads the key{' '}
                  <Code fz="xs">plan</Code> of the event that started it; with <Code fz="xs">/v1/send</Code>, the keys
                  of its <Code fz="xs">data</Code>. Write <Code fz="xs">{'{{plan ?? "free"}}'}</Code> for a fallback.
                </Text>
              </Stack>
            </div>
            <div style={{ minWidth: 0 }}>
              <PreviewPane
                projectId={project.id}
                preview={preview}
                contactId={contactId}
                onContactChange={setContactId}
              />
            </div>
          </SimpleGrid>
          {template && <SendSnippet templateId={template.id} />}
          <FormError error={formError} />
          <Group justify="flex-end">
            <Button variant="default" onClick={() => void navigate(`/p/${project.id}/templates`)}>
              Back to templates
            </Button>
            <Button type="submit" loading={mutation.isPending}>
              {template ? 'Save changes' : 'Create template'}
            </Button>
          </Group>
        </Stack>
      </form>
    </>
  );
}

/** `/p/:projectId/templates/new` and `/p/:projectId/templates/:id`: create or edit a template. */
export function TemplateEditorPage() {
  const { project } = useProject();
  const { templateId } = useParams();
  const template = useTemplate(project.id, templateId);
  if (!templateId) return <TemplateForm />;
  return (
    <QueryState query={template} skeletonRows={6}>
      {(t) => <TemplateForm key={t.id} template={t} />}
    </QueryState>
  );
}
