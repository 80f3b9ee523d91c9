import { and, eq, gt } from 'drizzle-orm';
import { Parser } from 'htmlparser2';
import { z } from 'zod';
import type { Db } from '../db/pool.js';
import { uploads } from '../db/schema.js';
import { walkBlocks, type BlocksDocument } from './blocks.schema.js';

/**
 * The check list a mail passes before it is saved (issue 38): what the editor shows beside the preview,
 * what the gallery's templates are held to. `error`s refuse a save of a blocks document (an image without
 * alt text); for HTML and MJML, written through the API since long before this list, nothing is refused.
 * `warning`s ask before a save in the dashboard; `info` (Pigeon adds the unsubscribe footer) only says. Each finding names its block when the content is a blocks document.
 */
export const contentCheck = z
  .object({
    code: z.enum(['missing_alt', 'insecure_link', 'no_unsubscribe', 'image_too_large', 'subject_length']),
    severity: z.enum(['error', 'warning', 'info']),
    message: z.string(),
    blockId: z.string().nullable().meta({ description: 'The block it is about (blocks format), else null' }),
  })
  .meta({ id: 'ContentCheck' });
export type ContentCheck = z.infer<typeof contentCheck>;

/** Longer subjects are cut off in most phone inboxes. */
export const SUBJECT_ADVISED_CHARS = 60;
/** Images past this make a mail slow to open on a phone, and Gmail clips messages over 102 KB of HTML. */
export const IMAGE_ADVISED_BYTES = 1024 * 1024;

interface Found {
  images: Array<{ src: string; alt: string | null; blockId: string | null }>;
  links: Array<{ href: string; blockId: string | null }>;
}

/** The images and links of HTML (tags as a browser reads them, Liquid left as text). */
function scanHtml(html: string, blockId: string | null, into: Found): void {
  const p = new Parser({
    onopentag(name, attrs) {
      if (name === 'img' && attrs.src) into.images.push({ src: attrs.src, alt: attrs.alt ?? null, blockId });
      if (name === 'a' && attrs.href) into.links.push({ href: attrs.href, blockId });
    },
  });
  p.write(html);
  p.end();
}

/** Images and links of a blocks document, each with its block. */
function scanBlocks(doc: BlocksDocument, into: Found): void {
  if (doc.style.logoUrl) into.images.push({ src: doc.style.logoUrl, alt: doc.style.logoAlt ?? '', blockId: null });
  walkBlocks(doc.blocks, (b) => {
    if (b.type === 'image') {
      into.images.push({ src: b.src, alt: b.alt, blockId: b.id });
      if (b.href) into.links.push({ href: b.href, blockId: b.id });
    }
    if (b.type === 'button') into.links.push({ href: b.href, blockId: b.id });
    if (b.type === 'social') for (const l of b.links) into.links.push({ href: l.url, blockId: b.id });
    if (b.type === 'text' || b.type === 'footer' || b.type === 'html') scanHtml(b.html, b.id, into);
  });
}

/**
 * The findings of content about to be saved: images without alt text, `http:` links and images, a
 * MARKETING mail that places no unsubscribe link (Pigeon then adds its footer), a subject over
 * {@link SUBJECT_ADVISED_CHARS} characters; and, with `db`, the project's uploaded images over
 * {@link IMAGE_ADVISED_BYTES} that the content shows.
 * @param input `html` is the compiled HTML; `blocks` the document when the format is blocks.
 */
export async function contentChecks(
  input: { subject: string; type: string; html: string; blocks: BlocksDocument | null },
  uploadsOf?: { db: Db; projectId: string },
): Promise<ContentCheck[]> {
  const found: Found = { images: [], links: [] };
  if (input.blocks) scanBlocks(input.blocks, found);
  else scanHtml(input.html, null, found);
  const out: ContentCheck[] = [];
  const blocking = input.blocks ? 'error' : 'warning';
  for (const img of found.images) {
    // The open pixel and spacer images carry alt="" on purpose; an image with no alt attribute at all,
    // or a blocks image with an empty one, says nothing to a reader who cannot see it.
    if (img.alt === null || (img.blockId && !img.alt.trim()))
      out.push({
        code: 'missing_alt',
        severity: blocking,
        message: `An image has no alt text (${short(img.src)}): readers with images off or a screen reader get nothing.`,
        blockId: img.blockId,
      });
    if (/^http:\/\//i.test(img.src))
      out.push({
        code: 'insecure_link',
        severity: 'warning',
        message: `An image loads over http (${short(img.src)}): many mail clients block it; use https.`,
        blockId: img.blockId,
      });
  }
  for (const l of found.links)
    if (/^http:\/\//i.test(l.href))
      out.push({
        code: 'insecure_link',
        severity: 'warning',
        message: `A link uses http instead of https (${short(l.href)}).`,
        blockId: l.blockId,
      });
  if (input.type === 'MARKETING' && !/unsubscribeUrl|manageUrl/.test(input.html))
    out.push({
      code: 'no_unsubscribe',
      // Pigeon adds its footer: nothing is wrong, the sender may only want to place the link.
      severity: 'info',
      message:
        'This marketing mail has no unsubscribe link of its own: Pigeon will add a footer with one. Add a footer block (or {{ unsubscribeUrl }}) to place it yourself.',
      blockId: null,
    });
  if ([...input.subject].length > SUBJECT_ADVISED_CHARS)
    out.push({
      code: 'subject_length',
      severity: 'warning',
      message: `The subject has ${[...input.subject].length} characters: most phones show about ${SUBJECT_ADVISED_CHARS}.`,
      blockId: null,
    });
  if (uploadsOf && found.images.length) out.push(...(await largeUploads(uploadsOf.db, uploadsOf.projectId, found)));
  return out;
}

/** The project's uploads over the advised size that the content shows, matched by their storage key. */
async function largeUploads(db: Db, projectId: string, found: Found): Promise<ContentCheck[]> {
  const large = await db
    .select({ key: uploads.storageKey, size: uploads.size })
    .from(uploads)
    .where(and(eq(uploads.projectId, projectId), gt(uploads.size, IMAGE_ADVISED_BYTES)))
    .limit(1000);
  const out: ContentCheck[] = [];
  for (const img of found.images) {
    const hit = large.find((u) => img.src.endsWith(`/${u.key}`));
    if (hit)
      out.push({
        code: 'image_too_large',
        severity: 'warning',
        message: `An image is ${(hit.size / 1024 / 1024).toFixed(1)} MB: over 1 MB makes the mail slow to open on a phone.`,
        blockId: img.blockId,
      });
  }
  return out;
}

function short(url: string): string {
  return url.length > 60 ? `${url.slice(0, 57)}…` : url;
}
