import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer/index.js';

/** A message built by nodemailer: the raw MIME (DKIM-signed when the options asked for it). */
export interface BuiltMessage {
  message: Buffer;
  envelope: { from: string; to: string[] };
  messageId: string;
}

/** Builds (and signs) messages; `close` stops any threads. */
export interface MimeBuilder {
  /** `urgent`: built without waiting behind builds already queued (see threadedBuilder). */
  build(message: Mail.Options, opts?: { urgent?: boolean }): Promise<BuiltMessage>;
  close(): Promise<void>;
}

/** nodemailer's stream transport in this thread: CRLF line ends, the whole message in one Buffer. */
export function inlineBuilder(): MimeBuilder {
  const t = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  return {
    async build(message) {
      return (await t.sendMail(message)) as unknown as BuiltMessage;
    },
    async close() {
      t.close();
    },
  };
}

// The worker's code. Evaluated (no file), so it runs the same from src/ under tsx or vitest and from
// dist/; it loads nodemailer from the path this module resolved. Buffers arrive as Uint8Arrays after
// the structured clone, so attachment contents are turned back into Buffers for nodemailer.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const nodemailer = require(workerData.nodemailer);
const t = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
parentPort.on('message', ({ id, message }) => {
  for (const a of message.attachments || []) if (a.content instanceof Uint8Array) a.content = Buffer.from(a.content.buffer, a.content.byteOffset, a.content.byteLength);
  t.sendMail(message).then(
    (info) => parentPort.postMessage({ id, message: info.message, envelope: info.envelope, messageId: info.messageId }, [info.message.buffer].filter((b) => b.byteLength === info.message.length)),
    (err) => parentPort.postMessage({ id, error: String((err && err.message) || err) }),
  );
});
`;

type Pending = { resolve: (m: BuiltMessage) => void; reject: (e: Error) => void; bulk: boolean };
type Slot = { worker: Worker; pending: Map<number, Pending>; bulk: number };

/**
 * Builds and DKIM-signs on `threads` worker threads (RSA signing and MIME encoding are CPU work that
 * would otherwise hold the event loop the delivery runs on), dispatching each message to the thread
 * with the fewest in flight. A thread that dies fails its messages (the delivery retries them) and is
 * replaced. @throws the build error of nodemailer, as an Error with its message.
 */
export function threadedBuilder(threads: number): MimeBuilder & { inlineBuilds(): number } {
  const nodemailerPath = createRequire(import.meta.url).resolve('nodemailer');
  let seq = 0;
  let closed = false;
  const slots: Slot[] = [];
  const settle = (slot: Slot, id: number): Pending | undefined => {
    const p = slot.pending.get(id);
    if (!p) return undefined;
    slot.pending.delete(id);
    if (p.bulk) slot.bulk--;
    return p;
  };
  const spawn = (i: number) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { nodemailer: nodemailerPath } });
    const slot: Slot = { worker, pending: new Map<number, Pending>(), bulk: 0 };
    worker.unref();
    worker.on('message', (m: { id: number; message?: Uint8Array; envelope?: BuiltMessage['envelope']; messageId?: string; error?: string }) => {
      const p = settle(slot, m.id);
      if (!p) return;
      if (m.error !== undefined) p.reject(new Error(m.error));
      else p.resolve({ message: Buffer.from(m.message!.buffer, m.message!.byteOffset, m.message!.byteLength), envelope: m.envelope!, messageId: m.messageId! });
    });
    worker.on('error', (err) => {
      for (const p of slot.pending.values()) p.reject(err);
      slot.pending.clear();
      slot.bulk = 0;
    });
    worker.on('exit', () => {
      for (const p of slot.pending.values()) p.reject(new Error('MIME builder thread exited'));
      slot.pending.clear();
      slot.bulk = 0;
      if (!closed) spawn(i);
    });
    slots[i] = slot;
  };
  for (let i = 0; i < threads; i++) spawn(i);
  const inline = inlineBuilder();
  let inlined = 0;
  return {
    /** How many urgent mails were built on the event loop (behind bulk builds) so far. */
    inlineBuilds: () => inlined,
    build(message, opts) {
      const slot = slots.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
      // A thread works through its messages in order: an urgent mail behind a campaign's builds is
      // built on the event loop instead (a millisecond or two of this thread's time). Behind other
      // urgent mail only, it waits its turn on the thread: a run of workflow or /v1/send mail keeps
      // the signing off the event loop (bench/workflows.ts).
      if (opts?.urgent && slot.bulk > 0) {
        inlined++;
        return inline.build(message);
      }
      const id = ++seq;
      const bulk = !opts?.urgent;
      if (bulk) slot.bulk++;
      return new Promise<BuiltMessage>((resolve, reject) => {
        slot.pending.set(id, { resolve, reject, bulk });
        slot.worker.postMessage({ id, message });
      });
    },
    async close() {
      closed = true;
      await Promise.all(slots.map((s) => s.worker.terminate()));
    },
  };
}

/**
 * The builder for this machine: `threads` worker threads when given, else one per core beyond the
 * first (none on a single core, where a thread would only add copying).
 */
export function mimeBuilder(threads = Math.min(4, availableParallelism() - 1)): MimeBuilder {
  return threads > 0 ? threadedBuilder(threads) : inlineBuilder();
}
