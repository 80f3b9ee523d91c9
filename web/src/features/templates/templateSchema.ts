/**
 * The template form's checks before saving, in a module of its own: zod and the server's shared rules
 * load after the editor shows (the first screen's budget), long before anyone presses Save.
 */
import { z } from 'zod';
import { bodyField, emailField, subjectField } from '../../api/rules';

/**
 * The checks made before saving: the server's own rules for subject, body and addresses (shared zod
 * schemas), with plain messages for the required fields.
 */
export const templateSchema = z
  .object({
    name: z.string().trim().min(1, 'Name is required').max(200),
    subject: z.string().min(1, 'Subject is required').pipe(subjectField('Subject must not contain line breaks')),
    from: z.string().trim().min(1, 'From address is required').pipe(emailField),
    fromName: z.string().max(200),
    replyTo: z.union([z.literal(''), emailField]),
    type: z.enum(['TRANSACTIONAL', 'MARKETING', 'HEADLESS']),
    topicId: z.string(),
    body: z.string(),
    format: z.enum(['html', 'mjml', 'blocks']),
    blocks: z.unknown(),
    translations: z.record(
      z.string(),
      z.object({
        subject: z
          .string()
          .min(1, 'The subject of this language is required')
          .pipe(subjectField('Subject must not contain line breaks')),
        fromName: z.string().max(200),
        body: z.string(),
        blocks: z.unknown(),
      }),
    ),
  })
  .superRefine((v, ctx) => {
    // A blocks document's body is the server's to write: only the code formats have one to check.
    if (v.format === 'blocks') return;
    const body = z.string().min(1, 'The body is empty').pipe(bodyField).safeParse(v.body);
    for (const issue of body.success ? [] : body.error.issues)
      ctx.addIssue({ code: 'custom', message: issue.message, path: ['body'] });
  });
