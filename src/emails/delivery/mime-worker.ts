import type { KeyObject } from 'node:crypto';
import { parentPort } from 'node:worker_threads';
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer/index.js';
import { withParsedKey } from './dkim-keys.js';

/**
 * A thread of the threaded MIME builder (mime-builder.ts `threadedBuilder`), started from this file by
 * `new Worker`; not a module to import. Each `{ id, message }` posted to it is built (and DKIM-signed)
 * with nodemailer's stream transport, as the inline builder builds it, and answered with
 * `{ id, message, envelope, messageId }` (the raw MIME's memory transferred, not copied, when the Buffer
 * owns it) or `{ id, error }` (nodemailer's error message).
 */

/** What the builder posts: a message id of its own and the nodemailer options. */
export interface MimeRequest {
  id: number;
  message: Mail.Options;
}

/** What the thread answers. */
export type MimeReply =
  | { id: number; message: Uint8Array; envelope: { from: string; to: string[] }; messageId: string; error?: undefined }
  | { id: number; error: string };

const port = parentPort;
if (!port)
  throw new Error("mime-worker.ts is the MIME builder's worker thread (mime-builder.ts), not a module to import");

const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
const keys = new Map<string, KeyObject>();

port.on('message', ({ id, message }: MimeRequest) => {
  // Buffers arrive as Uint8Arrays after the structured clone; nodemailer wants Buffers.
  for (const a of message.attachments ?? []) {
    if (a.content instanceof Uint8Array)
      a.content = Buffer.from(a.content.buffer, a.content.byteOffset, a.content.byteLength);
  }
  transport.sendMail(withParsedKey(message, keys)).then(
    (info) => {
      const raw = info.message as unknown as Buffer;
      // A small Buffer lives in Node's shared pool: transferring that ArrayBuffer would take the pool.
      const transfer = raw.buffer.byteLength === raw.length ? [raw.buffer as ArrayBuffer] : [];
      // The stream transport's envelope always has a sender address (nodemailer types it `string | false`).
      const envelope = info.envelope as { from: string; to: string[] };
      port.postMessage({ id, message: raw, envelope, messageId: info.messageId } satisfies MimeReply, transfer);
    },
    (err: unknown) =>
      port.postMessage({ id, error: String((err as Error | undefined)?.message || err) } satisfies MimeReply),
  );
});
