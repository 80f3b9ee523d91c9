import { parentPort } from 'node:worker_threads';
import mjml2html from 'mjml';

/**
 * The MJML compiler's worker thread (mjml.ts), started from this file by `new Worker`; not a module to
 * import. Each `{ id, source }` is compiled with MJML's strict validation and answered with
 * `{ id, html }` or `{ id, errors: [{line, message}] }`. The `mjml` package (about 100 MB once loaded)
 * lives only here, so the API process pays for it only while someone edits MJML.
 */

/** What the compiler posts. */
export interface MjmlRequest {
  id: number;
  source: string;
}

/** One problem MJML reported: its 1-based line in the source (0 when it names none) and message. */
export interface MjmlProblem {
  line: number;
  message: string;
}

/** What the thread answers. */
export type MjmlReply = { id: number; html: string; errors?: undefined } | { id: number; errors: MjmlProblem[] };

const port = parentPort;
if (!port) throw new Error("mjml-worker.ts is the MJML compiler's worker thread (mjml.ts), not a module to import");

port.on('message', ({ id, source }: MjmlRequest) => {
  // `ignoreIncludes`: mj-include would read files of this server into the mail.
  Promise.resolve(mjml2html(source, { validationLevel: 'strict', ignoreIncludes: true, keepComments: false })).then(
    (out) => port.postMessage({ id, html: out.html } satisfies MjmlReply),
    (err: unknown) => {
      const e = err as { errors?: Array<{ line?: number; message?: string }>; message?: string };
      const errors = e.errors?.length
        ? e.errors.map((x) => ({ line: x.line ?? 0, message: String(x.message ?? 'invalid MJML') }))
        : [{ line: 0, message: parseMessage(e.message) }];
      port.postMessage({ id, errors } satisfies MjmlReply);
    },
  );
});

/** MJML's parser says only "Parsing failed. Check your mjml." for a document that is not MJML at all. */
function parseMessage(message: string | undefined): string {
  if (!message || /parsing failed/i.test(message))
    return 'not an MJML document: it must start with <mjml> and hold an <mj-body>';
  return message.trim();
}
