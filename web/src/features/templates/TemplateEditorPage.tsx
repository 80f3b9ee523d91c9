import { Button, Group, Paper, Select, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useLocation, useNavigate, useParams } from 'react-router';
import { applyServerErrors, FormError, sentencesResolver, useApiForm } from '../../components/forms';
import { notifyError, notifySuccess } from '../../components/notify';
import { PageHeader } from '../../components/PageHeader';
import { PreviewPane, SyntaxErrorNote, syntaxProblemOf, usePreview } from '../../components/PreviewPane';
import { QueryState } from '../../components/QueryState';
import type { GalleryTemplate } from '../email-editor/api';
import { BlocksField } from '../email-editor/BlocksField';
import { CheckList } from '../email-editor/CheckList';
import { localChecks, mergeChecks, newDocument, renderable, STARTER_MJML, type Format } from '../email-editor/content';
import { FormatChoice } from '../email-editor/FormatChoice';
import { GalleryButton } from '../email-editor/GalleryButton';
import { Languages } from '../email-editor/Languages';
import type { TranslationDraft } from '../email-editor/translations';
import { useEmailStyle } from '../email-editor/api';
import { useSaveGate } from '../email-editor/useSaveGate';
import { useProject } from '../projects/ProjectContext';
import { TopicSelect } from '../topics/TopicSelect';
import { createTemplate, templateKeys, updateTemplate, useTemplate, type Template } from './api';
import { CodeBody } from './CodeBody';
import { SavedActions } from './SavedActions';
import { SendSnippet } from './SendSnippet';
import {
  emptyValues,
  galleryValues,
  inputOf,
  STARTER_BODY,
  valuesOf,
  type TemplateV2,
  type TemplateValues,
} from './templateForm';
import { useUnsavedChangesGuard } from './UnsavedChangesGuard';

/** The form's field problems (zod and the server's rules, loaded once, after the first paint). */
async function checkValues(values: TemplateValues) {
  const { templateSchema } = await import('./templateSchema');
  return sentencesResolver(templateSchema)(values);
}

const TYPES = [
  { value: 'TRANSACTIONAL', label: 'Transactional (receipts, resets…)' },
  { value: 'MARKETING', label: 'Marketing (unsubscribe footer added)' },
  { value: 'HEADLESS', label: 'Headless (sent as written, never tracked)' },
];

/** The form of one template (new when `template` is undefined), with the editor and the live preview. */
function TemplateForm({ template }: { template?: Template }) {
  const { project } = useProject();
  const navigate = useNavigate();
  const qc = useQueryClient();
  const [contactId, setContactId] = useState<string | null>(null);
  const insertAtCursor = useRef<((text: string) => void) | null>(null);
  const selectBlock = useRef<((id: string) => void) | null>(null);
  // "Use this template" in the gallery opens this screen with the starter in the navigation state.
  const gallery = (useLocation().state as { gallery?: GalleryTemplate } | null)?.gallery;
  const style = useEmailStyle(project.id);
  // The visual editor is remounted when a conversion or a format choice replaces its document.
  const [editorKey, setEditorKey] = useState(0);
  const saveGate = useSaveGate();
  const { form, mutation, formError } = useApiForm<TemplateValues, Template>({
    initialValues: template ? valuesOf(template) : gallery ? galleryValues(gallery) : emptyValues(),
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
  // The language tab on screen (null: the default content): the body, the preview and the test follow it.
  const [lang, setLang] = useState<string | null>(null);
  const tr = lang ? v.translations[lang] : undefined;
  const blocks = v.format === 'blocks' ? (tr ? tr.blocks : v.blocks) : null;
  const bodyText = tr ? tr.body : v.body;
  const setTranslation = (tag: string, patch: Partial<TranslationDraft>) =>
    form.setFieldValue('translations', { ...v.translations, [tag]: { ...v.translations[tag], ...patch } });
  const setBody = (body: string) => (lang ? setTranslation(lang, { body }) : form.setFieldValue('body', body));
  const setBlocks = (doc: NonNullable<TemplateValues['blocks']>) =>
    lang ? setTranslation(lang, { blocks: doc }) : form.setFieldValue('blocks', doc);
  const preview = usePreview(project.id, {
    subject: tr ? tr.subject : v.subject,
    body: bodyText,
    type: v.type,
    contactId,
    format: v.format,
    blocks: blocks && renderable(blocks),
    locale: lang,
  });
  const problem = syntaxProblemOf(preview.query.error);
  const bodyError = lang ? undefined : typeof form.errors.body === 'string' ? form.errors.body : undefined;
  const dirty = form.isDirty();
  const guard = useUnsavedChangesGuard(dirty);
  const checks = mergeChecks(preview.shown?.checks, localChecks(blocks));
  // A save waits for the preview of what is written, so the check list it goes by is current.
  const [saveAsked, setSaveAsked] = useState(false);
  const onSubmit = (e?: FormEvent) => {
    e?.preventDefault();
    void checkValues(form.getValues()).then((errors) => {
      form.setErrors(errors);
      if (Object.keys(errors).length === 0) setSaveAsked(true);
    });
  };
  useEffect(() => {
    if (!saveAsked || preview.pending) return;
    // eslint-disable-next-line react-hooks/set-state-in-effect -- a request handed over once the preview arrived
    setSaveAsked(false);
    saveGate.gate(checks, () => mutation.mutate(form.getValues()));
    // Runs when the asked save meets a settled preview; the other values are read as they are then.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [saveAsked, preview.pending]);
  // The server's refusals of the document (a field of a block) have no input to show at: listed here.
  const blockErrors = Object.entries(form.errors).filter(
    ([k]) => k.startsWith('blocks') || (k.startsWith('translations.') && !/\.(subject|fromName)$/.test(k)),
  );
  const fieldError = (f: string) => (typeof form.errors[f] === 'string' ? (form.errors[f] as string) : undefined);

  /** A gallery starter, chosen on this screen: the visual editor gets its document. */
  const takeStarter = (g: GalleryTemplate) => {
    const next = galleryValues(g);
    form.setValues({ ...next, from: v.from, fromName: v.fromName, replyTo: v.replyTo, name: v.name || next.name });
    setLang(null);
    setEditorKey((k) => k + 1);
  };
  /** A new template's format: each starts from its own starter (the visual editor from the project style). */
  const choose = (f: Format) => {
    form.setValues({
      format: f,
      body: f === 'html' ? STARTER_BODY : f === 'mjml' ? STARTER_MJML : '',
      blocks: f === 'blocks' ? newDocument(style.data) : null,
      // Translations are written in the template's format: a new format starts without them.
      translations: {},
    });
    setLang(null);
    setEditorKey((k) => k + 1);
  };
  /**
   * Converts the saved template forward and saves that at once (blocks → the MJML they generate,
   * MJML → HTML, which the server compiles from the MJML sent as the body).
   */
  const convert = async (to: Format) => {
    if (!template) return;
    const body = to === 'mjml' ? (preview.shown?.mjml ?? '') : v.body;
    try {
      const saved = (await updateTemplate(project.id, template.id, {
        format: to,
        body,
        blocks: null,
      } as never)) as TemplateV2;
      qc.setQueryData(templateKeys.one(project.id, saved.id), saved);
      const next = valuesOf(saved);
      form.setValues(next);
      form.resetDirty(next);
      notifySuccess(`Converted to ${to === 'mjml' ? 'MJML' : 'HTML'}.`);
    } catch (err) {
      notifyError(err, 'The template was not converted');
    }
  };

  return (
    <>
      <PageHeader
        title={template ? template.name : 'New template'}
        description="Write the email with the visual editor, MJML or HTML; the preview shows it as Pigeon sends it, with the variables filled from a sample contact."
        actions={
          !template ? (
            <GalleryButton projectId={project.id} onUse={takeStarter} />
          ) : template ? (
            <SavedActions
              template={template}
              dirty={dirty}
              contactId={contactId}
              locale={lang}
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
          <Paper p="lg">
            <FormatChoice
              format={v.format}
              isNew={!template}
              onChoose={choose}
              onConvert={
                // A conversion writes the default content only: not offered while translations exist.
                dirty ||
                lang ||
                Object.keys(v.translations).length > 0 ||
                !preview.shown ||
                (v.format === 'blocks' && !preview.shown.mjml)
                  ? null
                  : (to) => void convert(to)
              }
            />
          </Paper>
          <Paper p="lg">
            <Languages
              drafts={v.translations}
              active={lang}
              onActive={setLang}
              onDrafts={(drafts, active) => {
                form.setFieldValue('translations', drafts);
                setLang(active);
              }}
              base={v}
              blocked={null}
              defaultFromName={v.fromName}
              error={fieldError}
            />
          </Paper>
          {v.format === 'blocks' && blocks ? (
            <Stack gap="lg">
              <BlocksField
                key={`${editorKey}:${lang ?? ''}`}
                projectId={project.id}
                initial={blocks}
                onChange={setBlocks}
                checks={checks}
                selectRef={selectBlock}
              />
              <PreviewPane
                projectId={project.id}
                preview={preview}
                contactId={contactId}
                onContactChange={setContactId}
              />
            </Stack>
          ) : (
            <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
              <div style={{ minWidth: 0 }}>
                <CodeBody
                  projectId={project.id}
                  format={v.format === 'mjml' ? 'mjml' : 'html'}
                  key={lang ?? ''}
                  value={bodyText}
                  onChange={setBody}
                  error={bodyError}
                  problem={problem}
                  reserved={preview.shown?.reservedVariables ?? []}
                  unknown={preview.shown?.unknownVariables ?? []}
                  insertRef={insertAtCursor}
                />
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
          )}
          <CheckList checks={checks} onSelect={(id) => selectBlock.current?.(id)} />
          {blockErrors.length > 0 && (
            <Text size="sm" c="red.9" role="alert">
              The server refused the email: {blockErrors.map(([, m]) => String(m)).join(' ')}
            </Text>
          )}
          {template && <SendSnippet templateId={template.id} />}
          <FormError error={formError} />
          {saveGate.blocked && checks.some((c) => c.severity === 'error') && (
            <Text size="sm" c="red.9" role="alert" ta="right">
              Not saved: fix what the check list names first.
            </Text>
          )}
          {saveGate.dialog}
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
