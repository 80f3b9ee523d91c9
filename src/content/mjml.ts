import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { workerModule } from '../lib/worker-module.js';
import type { MjmlProblem, MjmlReply, MjmlRequest } from './mjml-worker.js';

/**
 * MJML → HTML (`format: "mjml"` and `"blocks"`, issue 38), with MJML's strict validation and
 * `mj-include` ignored. Compiling runs on one worker thread, started on first use and ended after a
 * minute without work, so the `mjml` package's memory is held only while someone edits MJML, and a
 * hostile document cannot hold the API's event loop: a compile past {@link COMPILE_TIMEOUT_MS} ends the
 * thread and is refused. Results are cached by the source's hash, so a campaign, its preview and its
 * tests compile once.
 */

export type { MjmlProblem };

/** The source did not compile: MJML's problems, each with its line. */
export class MjmlCompileError extends Error {
  constructor(readonly problems: MjmlProblem[]) {
    super(problems.map((p) => (p.line ? `line ${p.line}: ${p.message}` : p.message)).join('; '));
    this.name = 'MjmlCompileError';
  }
}

const COMPILE_TIMEOUT_MS = 10_000;
const IDLE_MS = 60_000;
const CACHE_ENTRIES = 64;

type Pending = { resolve: (html: string) => void; reject: (e: Error) => void; timer: NodeJS.Timeout };

let worker: Worker | null = null;
let idle: NodeJS.Timeout | null = null;
let seq = 0;
const pending = new Map<number, Pending>();
// Insertion order is recency: a hit is re-inserted, the oldest entry goes first.
const cache = new Map<string, string>();

function fail(w: Worker, err: Error): void {
  if (worker === w) worker = null;
  for (const p of pending.values()) {
    clearTimeout(p.timer);
    p.reject(err);
  }
  pending.clear();
}

function thread(): Worker {
  if (worker) return worker;
  const entry = workerModule(import.meta.url, 'mjml-worker');
  const w = new Worker(entry.url, { execArgv: entry.execArgv });
  w.unref();
  w.on('message', (m: MjmlReply) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    clearTimeout(p.timer);
    if (m.errors) p.reject(new MjmlCompileError(m.errors));
    else p.resolve(m.html);
    if (!pending.size) rest();
  });
  w.on('error', (err) => fail(w, err));
  w.on('exit', () =>
    fail(w, new MjmlCompileError([{ line: 0, message: 'the compiler stopped before answering; try again' }])),
  );
  worker = w;
  return w;
}

/** Ends the thread after a quiet minute: the next compile starts another. */
function rest(): void {
  if (idle) clearTimeout(idle);
  idle = setTimeout(() => {
    idle = null;
    if (!pending.size) void closeMjml();
  }, IDLE_MS);
  idle.unref();
}

/**
 * Compiles an MJML document to HTML. Liquid in text and attribute values passes through untouched;
 * Liquid tags between MJML elements must sit in `<mj-raw>`.
 * @returns the HTML document MJML writes (responsive, Outlook conditionals included).
 * @throws MjmlCompileError when MJML's strict validation refuses the document (unknown element or
 *   attribute, an element where it may not be, not MJML at all) or the compile passes 10 s.
 */
export async function compileMjml(source: string): Promise<string> {
  const key = createHash('sha256').update(source).digest('base64url');
  const hit = cache.get(key);
  if (hit !== undefined) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  if (idle) clearTimeout(idle);
  const w = thread();
  const id = ++seq;
  const html = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      pending.delete(id);
      reject(new MjmlCompileError([{ line: 0, message: 'the document took too long to compile' }]));
      // The thread may be stuck in the document: end it, and with it whatever else it was compiling.
      void w.terminate();
    }, COMPILE_TIMEOUT_MS);
    pending.set(id, { resolve, reject, timer });
    w.postMessage({ id, source } satisfies MjmlRequest);
  });
  cache.set(key, html);
  if (cache.size > CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
  return html;
}

/** Ends the compiler thread (at shutdown, and after a quiet minute). */
export async function closeMjml(): Promise<void> {
  const w = worker;
  worker = null;
  if (w) await w.terminate();
}
