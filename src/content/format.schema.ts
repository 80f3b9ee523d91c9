import { z } from 'zod';

/**
 * The formats of a template's or campaign's body (issue 38): `html` as written (Plunk's, the
 * default), `mjml` compiled by MJML, `blocks` the visual editor's document rendered to MJML and then
 * compiled the same way (format.ts).
 */
export const contentFormat = z.enum(['html', 'mjml', 'blocks']).meta({
  description: 'html: the body is HTML (default); mjml: the body is MJML; blocks: the visual editor document',
});
export type ContentFormat = z.infer<typeof contentFormat>;

/**
 * The check of a create or replace body: `body` is required unless the format is blocks, and blocks needs
 * its document. Runs even when other fields failed (`when`), so a request missing several fields hears of
 * all of them at once, as before formats existed.
 */
export function bodyUnlessBlocks(v: unknown, ctx: z.RefinementCtx): void {
  if (!v || typeof v !== 'object') return;
  const { format, body, blocks } = v as { format?: unknown; body?: unknown; blocks?: unknown };
  if (format !== 'blocks' && body === undefined)
    ctx.addIssue({ code: 'custom', path: ['body'], message: 'Invalid input: expected string, received undefined' });
  if (format === 'blocks' && !blocks)
    ctx.addIssue({ code: 'custom', path: ['blocks'], message: 'A blocks document is required for format "blocks"' });
}

/** {@link bodyUnlessBlocks}'s options: run whatever else failed. */
export const ALWAYS: z.core.$ZodSuperRefineParams = { when: () => true };
