import { Button, Group, NativeSelect, Paper, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { IconDeviceFloppy } from '@tabler/icons-react';
import { lazy, Suspense, useEffect, useState } from 'react';
import { ContentSkeleton } from '../../components/Loading';
import { useNavigate, useParams } from 'react-router';
import { ApiError } from '../../api/errors';
import { ErrorAlert } from '../../components/ErrorAlert';
import { notifySuccess } from '../../components/notify';
import { PageHeader } from '../../components/PageHeader';
import { SyntaxErrorNote, syntaxProblemOf, usePreview } from '../../components/PreviewPane';
import { QueryState } from '../../components/QueryState';
import { useDomains } from '../domains/api';
import { useProject } from '../projects/ProjectContext';
import { emptyTree } from '../segments/condition';
import { TopicSelect } from '../topics/TopicSelect';
import {
  campaignKeys,
  createCampaign,
  replaceCampaign,
  useAudienceCount,
  useCampaign,
  type Campaign,
  type CampaignBody,
} from './api';
import { AudiencePicker, audienceCountBody, type AudienceValue } from './AudiencePicker';
import { useEmailStyle, type GalleryTemplate } from '../email-editor/api';
import { localChecks, mergeChecks, newDocument, renderable, STARTER_MJML, type Format } from '../email-editor/content';
import { GalleryButton } from '../email-editor/GalleryButton';
import { Languages } from '../email-editor/Languages';
import { draftsOf, translationsInput, type TranslationDraft } from '../email-editor/translations';
import type { BlocksDocument } from '../email-editor/types';
import { useSaveGate } from '../email-editor/useSaveGate';
import { MessageBody } from './MessageBody';
import { byIndex, problemsOf, useExperimentChecks } from './composerChecks';
import { draftOf, experimentBody, type ExperimentDraft } from './experiment';
import { ExperimentFields } from './ExperimentFields';
import { deliveryBody, deliveryDraftOf, deliveryProblems, type DeliveryDraft } from './delivery';
import { TemplatePicker } from './TemplatePicker';

// Below the fold and its own form controls: loaded after the editor shows (the first screen's budget).
const DeliveryFields = lazy(() => import('./DeliveryFields').then((m) => ({ default: m.DeliveryFields })));

/** `/p/:projectId/campaigns/new` and `…/:campaignId/edit`: write or change a DRAFT/SCHEDULED campaign. */
export function CampaignEditorPage() {
  const { project } = useProject();
  const { campaignId } = useParams();
  const query = useCampaign(project.id, campaignId);
  if (!campaignId) return <Composer projectId={project.id} />;
  return <QueryState query={query}>{(c) => <Composer key={c.id} projectId={project.id} campaign={c} />}</QueryState>;
}

/** A campaign as issue 38's server answers it, mirrored until the generated types have the fields. */
type CampaignV2 = Campaign & { format?: Format; blocks?: BlocksDocument | null };

const STARTER_HTML = "<p>Hello {{firstName ?? 'there'}},</p>\n";

function Composer({ projectId, campaign }: { projectId: string; campaign?: CampaignV2 }) {
  const qc = useQueryClient();
  const navigate = useNavigate();
  const domains = useDomains(projectId);
  const verified = (domains.data ?? []).filter((d) => d.verified).map((d) => d.domain);
  const [v, setV] = useState({
    name: campaign?.name ?? '',
    subject: campaign?.subject ?? '',
    body: campaign?.body ?? STARTER_HTML,
    format: campaign?.format ?? ('html' as Format),
    blocks: campaign?.blocks ?? null,
    fromLocal: campaign?.from.split('@')[0] ?? 'hello',
    fromDomain: campaign?.from.split('@')[1] ?? '',
    fromName: campaign?.fromName ?? '',
    replyTo: campaign?.replyTo ?? '',
    type: campaign?.type ?? 'MARKETING',
    topicId: campaign?.topicId ?? '',
    translations: draftsOf(campaign?.translations),
  });
  // The language tab on screen (null: the default content): the body and the preview follow it.
  const [lang, setLang] = useState<string | null>(null);
  const tr = lang ? v.translations[lang] : undefined;
  const setTranslation = (tag: string, patch: Partial<TranslationDraft>) =>
    setV((old) => ({ ...old, translations: { ...old.translations, [tag]: { ...old.translations[tag], ...patch } } }));
  const [audience, setAudience] = useState<AudienceValue>({
    audienceType: campaign?.audienceType ?? 'ALL',
    segmentId: campaign?.segmentId ?? '',
    audienceCondition: campaign?.audienceCondition ?? emptyTree(),
  });
  const [exp, setExp] = useState<ExperimentDraft>(() => draftOf(campaign));
  const [delivery, setDelivery] = useState<DeliveryDraft>(() => deliveryDraftOf(campaign));
  // After a first try to save, the field errors follow the fields as they change (a filled field clears its error).
  const [tried, setTried] = useState(false);
  // Fields changed since the server refused the last save: its message about them no longer applies.
  const [edited, setEdited] = useState<ReadonlySet<string>>(new Set());
  const [contactId, setContactId] = useState<string | null>(null);
  const domain = v.fromDomain || verified[0] || '';
  // A template's sender domain is kept even when it is not (yet) verified: the server says whether it may send.
  const domainChoices = v.fromDomain && !verified.includes(v.fromDomain) ? [...verified, v.fromDomain] : verified;
  const checks = useExperimentChecks(exp.enabled);
  const local = tried
    ? { ...problemsOf(v, domain, audience, exp, checks), ...deliveryProblems(delivery, exp.enabled) }
    : {};
  const blocks = v.format === 'blocks' ? v.blocks : null;
  const shownBlocks = tr ? (v.format === 'blocks' ? tr.blocks : null) : blocks;
  const preview = usePreview(projectId, {
    subject: tr ? tr.subject : v.subject,
    body: tr ? tr.body : v.body,
    type: v.type,
    contactId,
    format: v.format,
    blocks: shownBlocks && renderable(shownBlocks),
    locale: lang,
  });
  const syntax = syntaxProblemOf(preview.query.error);
  const contentChecks = mergeChecks(preview.shown?.checks, localChecks(shownBlocks));
  const saveGate = useSaveGate();
  const style = useEmailStyle(projectId);
  const [editorKey, setEditorKey] = useState(0);
  /** Replaces the message's format and content (a format chosen, a conversion, a gallery starter). */
  const setContent = (c: { format: Format; body: string; blocks: BlocksDocument | null }) => {
    // Translations are written in the message's format: new content starts without them.
    setV((old) => ({ ...old, ...c, translations: {} }));
    setLang(null);
    setEditorKey((k) => k + 1);
  };
  const chooseFormat = (f: Format) =>
    setContent({
      format: f,
      body: f === 'html' ? STARTER_HTML : f === 'mjml' ? STARTER_MJML : '',
      blocks: f === 'blocks' ? newDocument(style.data) : null,
    });
  // Converted forward, saved with the campaign: blocks → the MJML they generate; MJML → HTML, which the
  // server compiles from the MJML sent as the body.
  const convert = (to: Format) =>
    setContent({ format: to, body: to === 'mjml' ? (preview.shown?.mjml ?? '') : v.body, blocks: null });
  const fromGallery = (g: GalleryTemplate) => {
    setContent({ format: 'blocks', body: '', blocks: { ...g.blocks, preheader: g.blocks.preheader ?? g.preheader } });
    setV((old) => ({ ...old, subject: g.subject, type: g.type, name: old.name || g.name }));
  };
  const set = (k: keyof typeof v) => (e: { currentTarget: { value: string } }) => {
    setV({ ...v, [k]: e.currentTarget.value });
    setEdited(new Set(edited).add(k === 'fromLocal' || k === 'fromDomain' ? 'from' : k));
  };
  // Only marketing mail goes under a topic: the choice is kept while the type is changed, sent only for MARKETING.
  const topicId = v.type === 'MARKETING' ? v.topicId || null : null;
  // The same query as the audience picker's count (one request): the split bar draws its groups from it.
  const count = useAudienceCount(projectId, audienceCountBody(audience, v.type, topicId));

  const body = (): CampaignBody => ({
    name: v.name.trim(),
    subject: v.subject,
    // A blocks document's body is the server's to write (the MJML it generates): none is sent.
    body: v.format === 'blocks' ? undefined : v.body,
    // HTML campaigns are sent as before issue 38, without the new fields.
    ...(v.format === 'html' ? {} : { format: v.format, blocks: blocks }),
    from: `${v.fromLocal.trim()}@${domain}`,
    fromName: v.fromName || null,
    replyTo: v.replyTo.trim() || null,
    type: v.type,
    audienceType: audience.audienceType,
    segmentId: audience.audienceType === 'SEGMENT' ? audience.segmentId || null : null,
    ...(audience.audienceType === 'FILTERED' ? { audienceCondition: audience.audienceCondition } : {}),
    topicId,
    translations: translationsInput(v.translations, v.format, renderable) as CampaignBody['translations'],
    ...experimentBody(exp),
    delivery: deliveryBody(delivery),
  });
  const save = useMutation({
    mutationFn: () => (campaign ? replaceCampaign(projectId, campaign.id, body()) : createCampaign(projectId, body())),
    onSuccess: (c) => {
      void qc.invalidateQueries({ queryKey: campaignKeys.all(projectId) });
      notifySuccess(campaign ? `${c.name} saved.` : `${c.name} created as a draft.`);
      void navigate(`/p/${projectId}/campaigns/${c.id}`);
    },
  });
  const serverErrors = (save.error instanceof ApiError ? save.error.fieldErrors : []).map((e) => ({
    ...e,
    field: byIndex(e.field, exp),
  }));
  const err = (f: string) => local[f] ?? (edited.has(f) ? undefined : serverErrors.find((e) => e.field === f)?.message);
  const shownFields = ['name', 'subject', 'body', 'from', 'replyTo', 'segmentId', 'topicId'];
  const shownPrefixes = ['audienceCondition', 'variants', 'experiment', 'delivery', 'translations'];
  const unshown =
    save.error &&
    !serverErrors.some((e) => shownFields.includes(e.field) || shownPrefixes.some((p) => e.field.startsWith(p)))
      ? save.error
      : null;

  // A save waits for the preview of what is written, so the check list it goes by is current.
  const [saveAsked, setSaveAsked] = useState(false);
  useEffect(() => {
    if (!saveAsked || preview.pending) return;
    // eslint-disable-next-line react-hooks/set-state-in-effect -- a request handed over once the preview arrived
    setSaveAsked(false);
    saveGate.gate(contentChecks, () => save.mutate());
    // Runs when the asked save meets a settled preview; the other values are read as they are then.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [saveAsked, preview.pending]);

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    setTried(true);
    setEdited(new Set());
    if (
      Object.keys(problemsOf(v, domain, audience, exp, checks)).length === 0 &&
      Object.keys(deliveryProblems(delivery, exp.enabled)).length === 0
    )
      setSaveAsked(true);
  };

  return (
    <>
      <PageHeader
        title={campaign ? `Edit ${campaign.name}` : 'New campaign'}
        description="Write the email and choose who receives it; send a test before you send it."
      />
      <form onSubmit={submit} noValidate>
        <Stack gap="md">
          <Paper p="md">
            <Stack gap="sm">
              <Title order={2} size="h4">
                Message
              </Title>
              {!campaign && (
                <Group align="flex-end" gap="sm">
                  <GalleryButton projectId={projectId} onUse={fromGallery} />
                  <TemplatePicker
                    projectId={projectId}
                    onPick={(t) => {
                      setEditorKey((k) => k + 1);
                      setV((old) => ({
                        ...old,
                        subject: t.subject,
                        body: t.body,
                        format: t.format ?? 'html',
                        blocks: t.blocks ?? null,
                        type: t.type,
                        fromLocal: t.from.split('@')[0],
                        fromDomain: t.from.split('@')[1] ?? '',
                        fromName: t.fromName ?? '',
                        topicId: t.topicId ?? '',
                      }));
                    }}
                  />
                </Group>
              )}
              <SimpleGrid cols={{ base: 1, md: 2 }}>
                <TextInput
                  label="Name"
                  description="Only you see it"
                  required
                  value={v.name}
                  onChange={set('name')}
                  error={err('name')}
                />
                <NativeSelect
                  label="Type"
                  value={v.type}
                  onChange={set('type')}
                  description="Marketing mail skips unsubscribed contacts"
                  data={[
                    { value: 'MARKETING', label: 'Marketing' },
                    { value: 'TRANSACTIONAL', label: 'Transactional' },
                    { value: 'HEADLESS', label: 'Headless (no unsubscribe footer)' },
                  ]}
                />
              </SimpleGrid>
              <TextInput label="Subject" required value={v.subject} onChange={set('subject')} error={err('subject')} />
              {syntax?.field === 'subject' && <SyntaxErrorNote problem={syntax} />}
              <Group align="flex-start" grow>
                <TextInput
                  label="From address"
                  required
                  value={v.fromLocal}
                  onChange={set('fromLocal')}
                  error={err('from')}
                  rightSection={
                    <Text size="sm" c="dimmed">
                      @
                    </Text>
                  }
                />
                <NativeSelect
                  label="Sender domain"
                  description="Only verified domains can send"
                  value={domain}
                  onChange={set('fromDomain')}
                  data={domainChoices.length ? domainChoices : [{ value: '', label: 'No verified domain' }]}
                />
              </Group>
              <SimpleGrid cols={{ base: 1, md: 2 }}>
                <TextInput label="From name" value={v.fromName} onChange={set('fromName')} />
                <TextInput
                  label="Reply-to"
                  type="email"
                  value={v.replyTo}
                  onChange={set('replyTo')}
                  error={err('replyTo')}
                />
              </SimpleGrid>
              <MessageBody
                projectId={projectId}
                isNew={!campaign}
                format={v.format}
                body={tr ? tr.body : v.body}
                blocks={shownBlocks}
                editorKey={`${editorKey}:${lang ?? ''}`}
                onBody={(text) =>
                  lang ? setTranslation(lang, { body: text }) : set('body')({ currentTarget: { value: text } })
                }
                onBlocks={(doc) =>
                  lang ? setTranslation(lang, { blocks: doc }) : setV((old) => ({ ...old, blocks: doc }))
                }
                onFormat={chooseFormat}
                onConvert={
                  // A conversion writes the default content only: not offered while translations exist.
                  !preview.shown ||
                  Object.keys(v.translations).length > 0 ||
                  (v.format === 'blocks' && !preview.shown.mjml)
                    ? null
                    : convert
                }
                error={err(lang ? `translations.${lang}.body` : 'body')}
                languages={
                  <Languages
                    drafts={v.translations}
                    active={lang}
                    onActive={setLang}
                    onDrafts={(translations, active) => {
                      setV((old) => ({ ...old, translations }));
                      setLang(active);
                    }}
                    base={v}
                    blocked={
                      exp.enabled
                        ? 'A campaign with an A/B test sends one language: turn the test off to add translations.'
                        : null
                    }
                    defaultFromName={v.fromName}
                    error={err}
                  />
                }
                preview={preview}
                contactId={contactId}
                onContactChange={setContactId}
                checks={contentChecks}
              />
            </Stack>
          </Paper>
          <Paper p="md">
            <Title order={2} size="h4" mb="sm">
              Audience
            </Title>
            <Stack gap="sm">
              <TopicSelect
                projectId={projectId}
                type={v.type}
                value={v.topicId}
                onChange={(id) => {
                  setV({ ...v, topicId: id });
                  setEdited(new Set(edited).add('topicId'));
                }}
                error={err('topicId')}
              />
              <AudiencePicker
                projectId={projectId}
                value={audience}
                onChange={setAudience}
                type={v.type}
                topicId={topicId}
                errors={[
                  ...serverErrors,
                  ...(local.segmentId ? [{ field: 'segmentId', message: local.segmentId }] : []),
                ]}
              />
            </Stack>
          </Paper>
          <Paper p="md" data-testid="ab-test">
            <ExperimentFields
              value={exp}
              onChange={(d, field) => {
                setExp(d);
                setEdited(new Set(edited).add(field));
              }}
              defaults={{
                subject: v.subject,
                from: `${v.fromLocal.trim()}@${domain}`,
                fromName: v.fromName,
                body: v.body,
              }}
              count={count.data && !count.isError ? count.data.count : null}
              err={err}
            />
          </Paper>
          <Paper p="md" data-testid="delivery">
            <Suspense fallback={<ContentSkeleton />}>
              <DeliveryFields
                projectId={projectId}
                campaignId={campaign?.id}
                value={delivery}
                onChange={(d, field) => {
                  setDelivery(d);
                  setEdited(new Set(edited).add(field));
                }}
                count={count.data && !count.isError ? count.data.count : null}
                err={err}
              />
            </Suspense>
          </Paper>
          {unshown && <ErrorAlert error={unshown} />}
          {saveGate.blocked && contentChecks.some((c) => c.severity === 'error') && (
            <Text size="sm" c="red.9" role="alert">
              Not saved: fix what the check list names first.
            </Text>
          )}
          {saveGate.dialog}
          <Group>
            <Button type="submit" loading={save.isPending} leftSection={<IconDeviceFloppy size={16} />}>
              {campaign ? 'Save campaign' : 'Save draft'}
            </Button>
            <Button variant="default" onClick={() => void navigate(-1)}>
              Cancel
            </Button>
          </Group>
        </Stack>
      </form>
    </>
  );
}
