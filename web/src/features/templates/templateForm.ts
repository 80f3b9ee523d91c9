import type { Format } from '../email-editor/content';
import type { GalleryTemplate } from '../email-editor/api';
import { renderable } from '../email-editor/content';
import { draftsOf, translationsInput, type TranslationDrafts } from '../email-editor/translations';
import type { BlocksDocument } from '../email-editor/types';
import type { Template, TemplateInput, TemplateType } from './api';

/**
 * A template as issue 38's server answers it (its format and blocks document), mirrored until the
 * generated types have the fields; the request body likewise.
 */
export type TemplateV2 = Template & { format?: Format; blocks?: BlocksDocument | null };
export type TemplateInputV2 = TemplateInput & { format?: Format; blocks?: BlocksDocument | null };

/** The editor's values: every field a string (empty optional ones are sent as null). */
export interface TemplateValues extends Record<string, unknown> {
  name: string;
  subject: string;
  from: string;
  fromName: string;
  replyTo: string;
  type: TemplateType;
  /** A topic id, '' for none; sent only for MARKETING (other mail ignores topics). */
  topicId: string;
  body: string;
  /** How the body is written; `blocks`: `blocks` holds the document and the server writes `body`. */
  format: Format;
  blocks: BlocksDocument | null;
  /** The translations by BCP 47 tag, in the template's format. */
  translations: TranslationDrafts;
}

/** The body a new template starts with: shows how a variable and its fallback are written. */
export const STARTER_BODY = `<h1>Hello {{firstName ?? "there"}}</h1>
<p>Write your message here. Variables like {{firstName}} come from the contact's data.</p>
`;

/** A new template's values. */
export const emptyValues = (): TemplateValues => ({
  name: '',
  subject: '',
  from: '',
  fromName: '',
  replyTo: '',
  type: 'TRANSACTIONAL',
  topicId: '',
  body: STARTER_BODY,
  format: 'html',
  blocks: null,
  translations: {},
});

/** A new template from a gallery starter: its document in the visual editor. */
export const galleryValues = (g: GalleryTemplate): TemplateValues => ({
  ...emptyValues(),
  name: g.name,
  subject: g.subject,
  type: g.type,
  body: '',
  format: 'blocks',
  blocks: { ...g.blocks, preheader: g.blocks.preheader ?? g.preheader },
});

/** A saved template's values. */
export const valuesOf = (t: TemplateV2): TemplateValues => ({
  name: t.name,
  subject: t.subject,
  from: t.from,
  fromName: t.fromName ?? '',
  replyTo: t.replyTo ?? '',
  type: t.type,
  topicId: t.topicId ?? '',
  body: t.body,
  format: t.format ?? 'html',
  blocks: t.blocks ?? null,
  translations: draftsOf(t.translations),
});

/** The request body of a create or update. */
export const inputOf = (v: TemplateValues): TemplateInputV2 => ({
  name: v.name.trim(),
  subject: v.subject,
  from: v.from.trim(),
  fromName: v.fromName.trim() || null,
  replyTo: v.replyTo.trim() || null,
  type: v.type,
  topicId: v.type === 'MARKETING' ? v.topicId || null : null,
  // A blocks document's body is the server's to write (the MJML it generates): none is sent.
  body: v.format === 'blocks' ? undefined : v.body,
  // HTML templates are sent as before issue 38, without the new fields.
  ...(v.format === 'html' ? {} : { format: v.format, blocks: v.format === 'blocks' ? v.blocks : null }),
  // The whole map (PATCH replaces it); null when there are none, which also clears saved ones.
  translations: translationsInput(v.translations, v.format, renderable) as TemplateInputV2['translations'],
});
