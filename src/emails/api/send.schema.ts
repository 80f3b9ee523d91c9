import { z } from 'zod';
import { bodyField, subjectField } from './content.schema.js';

/** Request and response schemas of `POST /v1/send`, attachments included. */

const noCrLf = (s: string) => !/[\r\n]/.test(s);

const email = z.email({ message: 'Invalid email address' });
const namedAddress = z.object({
  name: z.string().max(998).refine(noCrLf, 'must not contain CR or LF').optional(),
  email,
});
const address = z.union([email, namedAddress]);

export const attachmentIn = z.object({
  filename: z.string().min(1).max(255).refine(noCrLf, 'must not contain CR or LF'),
  /** Base64 of the file; checked and measured by the service. */
  content: z.string(),
  contentType: z
    .string()
    .regex(/^[\w.+-]+\/[\w.+-]+$/, 'must be a MIME type such as application/pdf')
    .max(255)
    .optional(),
});

export const sendBody = z
  .object({
    to: z.union([address, z.array(address).min(1).max(1000)]),
    subject: subjectField('must not contain newline characters').optional(),
    body: bodyField.optional(),
    template: z.string().optional(),
    from: address.optional(),
    /** Deprecated sender display name (used when `from` is a string). */
    name: z.string().max(998).refine(noCrLf, 'must not contain CR or LF').optional(),
    subscribed: z.boolean().optional(),
    data: z.record(z.string(), z.unknown()).optional(),
    headers: z.record(z.string(), z.string()).optional(),
    reply: email.optional(),
    attachments: z.array(attachmentIn).max(10, 'At most 10 attachments').optional(),
  })
  .meta({
    description:
      'Content is a template id, or both subject and body. Unknown fields (e.g. the old `type`) are ignored.',
  });

export type SendBody = z.infer<typeof sendBody>;

export const sendResult = z.object({
  success: z.literal(true),
  data: z.object({
    emails: z.array(z.object({ contact: z.object({ id: z.string(), email: z.string() }), email: z.string() })),
    timestamp: z.string(),
  }),
});
