import type { KeyObject } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Transporter } from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer/index.js';
import { withParsedKey } from './dkim-keys.js';
import type { MimeReply, MimeRequest } from './mime-worker.js';
import { workerModule } from '../../lib/worker-module.js';

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

let nodemailerModule: Promise<typeof import('nodemailer').default> | undefined;
/**
 * nodemailer, imported on first use and kept: it is a few megabytes of heap (its code, MIME and
 * well-known service tables) that a process which has not sent a mail yet does not need.
 */
export const loadNodemailer = (): Promise<typeof import('nodemailer').default> =>
  (nodemailerModule ??= import('nodemailer').then((m) => m.default));

/**
 * Bulk builds the event loop works on at once (inline builder). nodemailer builds a message in many
 * small asynchronous steps, so every build in flight shares the event loop: with a campaign's 50
 * sends in flight, a `/v1/send` built among them would progress at a fiftieth of the speed. Bulk
 * builds past this wait their turn (in order); urgent ones never wait. Building is CPU work on one
 * thread, so more in flight would add memory and latency, not rate.
 */
export const INLINE_BULK_BUILDS = 2;

/**
 * nodemailer's stream transport in this thread: CRLF line ends, the whole message in one Buffer. At
 * most `maxBulk` non-urgent builds run at once ({@link INLINE_BULK_BUILDS}); an urgent one starts at once.
 */
export function inlineBuilder(maxBulk = INLINE_BULK_BUILDS): MimeBuilder {
  let t: Transporter | undefined;
  const keys = new Map<string, KeyObject>();
  const run = async (message: Mail.Options) => {
    t ??= (await loadNodemailer()).createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
    return (await t.sendMail(withParsedKey(message, keys))) as unknown as BuiltMessage;
  };
  let active = 0;
  const waiting: Array<() => void> = [];
  return {
    async build(message, opts) {
      if (opts?.urgent) return run(message);
      // A finishing build hands its place straight to the next waiter, so `active` never overshoots.
      if (active >= maxBulk) await new Promise<void>((resolve) => waiting.push(resolve));
      else active++;
      try {
        return await run(message);
      } finally {
        const next = waiting.shift();
        if (next) next();
        else active--;
      }
    },
    async close() {
      t?.close();
    },
  };
}

type Pending = { resolve: (m: BuiltMessage) => void; reject: (e: Error) => void; bulk: boolean };
type Slot = { worker: Worker; pending: Map<number, Pending>; bulk: number };

/**
 * Builds and DKIM-signs on `threads` worker threads (RSA signing and MIME encoding are CPU work that
 * would otherwise hold the event loop the delivery runs on), dispatching each message to the thread
 * with the fewest in flight. A thread that dies fails its messages (the delivery retries them) and is
 * replaced. @throws the build error of nodemailer, as an Error with its message.
 */
export function threadedBuilder(threads: number): MimeBuilder & { inlineBuilds(): number } {
  const entry = workerModule(import.meta.url, 'mime-worker');
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
    const worker = new Worker(entry.url, { execArgv: entry.execArgv });
    const slot: Slot = { worker, pending: new Map<number, Pending>(), bulk: 0 };
    worker.unref();
    worker.on('message', (m: MimeReply) => {
      const p = settle(slot, m.id);
      if (!p) return;
      if (m.error !== undefined) p.reject(new Error(m.error));
      else
        p.resolve({
          message: Buffer.from(m.message.buffer, m.message.byteOffset, m.message.byteLength),
          envelope: m.envelope,
          messageId: m.messageId,
        });
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
        return inline.build(message, { urgent: true });
      }
      const id = ++seq;
      const bulk = !opts?.urgent;
      if (bulk) slot.bulk++;
      return new Promise<BuiltMessage>((resolve, reject) => {
        slot.pending.set(id, { resolve, reject, bulk });
        slot.worker.postMessage({ id, message } satisfies MimeRequest);
      });
    },
    async close() {
      closed = true;
      await Promise.all(slots.map((s) => s.worker.terminate()));
    },
  };
}

/**
 * The builder for this machine: `threads` worker threads when given (`MIME_THREADS`), else one per
 * core beyond two, at most 4. The worker's event loop and the database each keep a core: on two
 * cores a MIME thread adds little to a campaign's rate but a second V8 isolate (with its own young
 * generation) to the worker's peak RSS, while the event loop alone keeps pace with a bare nodemailer
 * pool in less memory (bench/campaign.ts measures both).
 */
export function mimeBuilder(threads = Math.max(0, Math.min(4, availableParallelism() - 2))): MimeBuilder {
  return threads > 0 ? threadedBuilder(threads) : inlineBuilder();
}
