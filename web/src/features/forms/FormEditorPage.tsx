import {
  Button,
  Group,
  MultiSelect,
  NativeSelect,
  Paper,
  Stack,
  Switch,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { IconDeviceFloppy, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { ApiError } from '../../api/errors';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ErrorAlert } from '../../components/ErrorAlert';
import { notifySuccess } from '../../components/notify';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';
import { useProject } from '../projects/ProjectContext';
import { useTopics } from '../topics/api';
import { createForm, deleteForm, formKeys, updateForm, useForm, useTemplateChoices, type Form } from './api';
import { draftsOf, fieldsOf, FieldsEditor, type FieldDraft } from './FieldsEditor';
import { SharePanel } from './SharePanel';

/** `/p/:projectId/forms/new` and `/p/:projectId/forms/:formId`: build a form, then share it. */
export function FormEditorPage() {
  const { project } = useProject();
  const { formId } = useParams();
  const query = useForm(project.id, formId);
  if (!formId) return <FormEditor projectId={project.id} />;
  return <QueryState query={query}>{(f) => <FormEditor key={f.id} projectId={project.id} form={f} />}</QueryState>;
}

const NEW_FIELDS = draftsOf([{ key: 'email', label: 'Email', type: 'email', required: true }]);

function FormEditor({ projectId, form }: { projectId: string; form?: Form }) {
  const qc = useQueryClient();
  const navigate = useNavigate();
  const { can } = useProject();
  const [name, setName] = useState(form?.name ?? '');
  const [fields, setFields] = useState<FieldDraft[]>(form ? draftsOf(form.fields) : NEW_FIELDS);
  const [topics, setTopics] = useState<string[]>(form?.topics ?? []);
  const [doubleOptIn, setDoubleOptIn] = useState(form?.doubleOptIn ?? false);
  const [from, setFrom] = useState(form?.from ?? '');
  const [fromName, setFromName] = useState(form?.fromName ?? '');
  const [templateId, setTemplateId] = useState(form?.confirmationTemplateId ?? '');
  const [redirectUrl, setRedirectUrl] = useState(form?.redirectUrl ?? '');
  const [successMessage, setSuccessMessage] = useState(form?.successMessage ?? 'Thanks for signing up!');
  const [deleting, del] = useDisclosure();
  const topicList = useTopics(projectId);
  const templates = useTemplateChoices(projectId);
  const base = `/p/${projectId}/forms`;

  const save = useMutation({
    mutationFn: () => {
      const body = {
        name: name.trim(),
        fields: fieldsOf(fields),
        topics,
        doubleOptIn,
        from: from.trim() || null,
        fromName: fromName.trim() || null,
        confirmationTemplateId: templateId || null,
        redirectUrl: redirectUrl.trim() || null,
        successMessage: successMessage.trim(),
      };
      return form ? updateForm(projectId, form.id, body) : createForm(projectId, body);
    },
    onSuccess: (f) => {
      void qc.invalidateQueries({ queryKey: formKeys.all(projectId) });
      notifySuccess(form ? `Form “${f.name}” saved.` : `Form “${f.name}” created: share it below.`);
      if (!form) void navigate(`${base}/${f.id}`, { replace: true });
    },
  });
  const fieldErrors = save.error instanceof ApiError ? save.error.fieldErrors : [];
  const errors: Record<string, string> = {};
  for (const e of fieldErrors) errors[e.field] ??= e.message;
  const nameError = errors.name ?? (save.isError && !name.trim() ? 'Give the form a name.' : undefined);
  const topicsError = Object.entries(errors).find(([k]) => k.startsWith('topics'))?.[1];
  // Field errors shown next to their inputs; anything else above the button.
  const shown = (k: string) =>
    ['name', 'from', 'fromName', 'redirectUrl', 'successMessage', 'confirmationTemplateId', 'fields'].includes(k) ||
    k.startsWith('fields.') ||
    k.startsWith('topics');
  const otherError =
    save.error && !(fieldErrors.length && fieldErrors.every((e) => shown(e.field))) ? save.error : null;

  return (
    <>
      <PageHeader
        title={form ? form.name : 'New form'}
        description="Who signs up, what they are asked, which topics they join and what they see afterwards."
        actions={
          form &&
          can.editProject && (
            <Button variant="default" color="red" leftSection={<IconTrash size={16} />} onClick={del.open}>
              Delete
            </Button>
          )
        }
      />
      <Stack gap="md">
        {form && <SharePanel form={form} />}
        <form
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            if (name.trim()) save.mutate();
            else save.reset();
          }}
        >
          <Stack gap="md">
            <Paper p="md">
              <Stack gap="sm">
                <TextInput
                  label="Name"
                  description="The title of the hosted page"
                  required
                  value={name}
                  error={nameError}
                  maxLength={100}
                  onChange={(e) => setName(e.currentTarget.value)}
                />
                <MultiSelect
                  label="Topics"
                  description="What a new contact joins"
                  placeholder={topics.length ? undefined : 'None: only the subscription'}
                  data={(topicList.data ?? []).map((t) => ({ value: t.id, label: t.name }))}
                  value={topics}
                  error={topicsError ?? (topicList.isError ? 'Could not load the topics' : undefined)}
                  onChange={setTopics}
                  searchable
                  clearable
                />
              </Stack>
            </Paper>
            <Paper p="md">
              <Title order={2} size="h4" mb="sm">
                Fields
              </Title>
              <FieldsEditor fields={fields} onChange={setFields} errors={errors} />
            </Paper>
            <Paper p="md">
              <Stack gap="sm">
                <Title order={2} size="h4">
                  Confirmation
                </Title>
                <Switch
                  label="Double opt-in: confirm the address by mail before subscribing"
                  checked={doubleOptIn}
                  onChange={(e) => setDoubleOptIn(e.currentTarget.checked)}
                />
                {doubleOptIn && (
                  <>
                    <Text size="sm" c="dimmed">
                      New contacts get a mail with a link; only once they open it are they subscribed and join the
                      topics. Links work for 7 days.
                    </Text>
                    <Group align="flex-start" grow wrap="wrap">
                      <TextInput
                        label="From address"
                        description="On a verified domain of this project"
                        required
                        type="email"
                        value={from}
                        error={errors.from}
                        onChange={(e) => setFrom(e.currentTarget.value)}
                      />
                      <TextInput
                        label="From name"
                        value={fromName}
                        error={errors.fromName}
                        maxLength={200}
                        onChange={(e) => setFromName(e.currentTarget.value)}
                      />
                    </Group>
                    <NativeSelect
                      label="Confirmation mail"
                      description="A template of yours puts the link where it says {{confirmUrl}}"
                      value={templateId}
                      error={errors.confirmationTemplateId}
                      data={[
                        { value: '', label: 'Pigeon’s default text' },
                        ...(templates.data?.data ?? []).map((t) => ({ value: t.id, label: t.name })),
                      ]}
                      onChange={(e) => setTemplateId(e.currentTarget.value)}
                    />
                  </>
                )}
              </Stack>
            </Paper>
            <Paper p="md">
              <Stack gap="sm">
                <Title order={2} size="h4">
                  After signing up
                </Title>
                <Textarea
                  label="Success message"
                  required
                  autosize
                  minRows={2}
                  maxLength={1000}
                  value={successMessage}
                  error={errors.successMessage}
                  onChange={(e) => setSuccessMessage(e.currentTarget.value)}
                />
                <TextInput
                  label="Redirect address"
                  description="Instead of Pigeon’s success page, send the visitor to this page of your site"
                  placeholder="https://example.com/thanks"
                  value={redirectUrl}
                  error={errors.redirectUrl}
                  onChange={(e) => setRedirectUrl(e.currentTarget.value)}
                />
              </Stack>
            </Paper>
            {otherError && <ErrorAlert error={otherError} />}
            {can.editProject ? (
              <Group>
                <Button type="submit" loading={save.isPending} leftSection={<IconDeviceFloppy size={16} />}>
                  {form ? 'Save form' : 'Create form'}
                </Button>
              </Group>
            ) : (
              <Text size="sm" c="dimmed">
                Only owners and admins of this project can change forms.
              </Text>
            )}
          </Stack>
        </form>
      </Stack>
      {form && (
        <ConfirmDialog
          opened={deleting}
          onClose={del.close}
          title={`Delete ${form.name}?`}
          confirmLabel="Delete form"
          danger
          onConfirm={async () => {
            await deleteForm(projectId, form.id);
            void qc.invalidateQueries({ queryKey: formKeys.all(projectId) });
            notifySuccess(`Form “${form.name}” deleted.`);
            void navigate(base);
          }}
        >
          Its hosted page and snippet stop working, and links of sign-ups not yet confirmed lead nowhere. Contacts it
          brought in stay, and so does their consent history.
        </ConfirmDialog>
      )}
    </>
  );
}
