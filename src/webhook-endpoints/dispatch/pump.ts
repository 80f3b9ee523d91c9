import { performance } from 'node:perf_hooks';
import type { Deps } from '../../deps.js';
import type { SafeAgents } from '../../lib/safe-http.js';
import { bodyOf, post, signerFor, type Signer } from '../attempt.js';
import { failQueuedOfDisabled, type AttemptRecord } from '../deliveries.state.js';
import { AdaptiveLimit } from './adaptive-limit.js';
import { dueDeliveries, type DueDelivery, type LeasedEndpoint } from './dispatch.repo.js';

/** Deliveries read per query. */
export const PAGE = 100;
/** Deliveries held in memory per endpoint, at most (read ahead past a subject that holds up the rest). */
export const BUFFER_MAX = 1000;
/** Wait after a failed read before the next, in ms. */
const READ_RETRY_MS = 1000;

/** What a pump needs from its dispatcher. */
export interface PumpContext {
  deps: Pick<Deps, 'db' | 'config' | 'clock' | 'secret' | 'log'>;
  /** Kept connections to receivers, shared by the dispatcher's pumps. */
  agents: SafeAgents;
  /** Records a finished attempt (batched with others'); settles once it is committed. */
  record(r: AttemptRecord): Promise<void>;
  /** The pump has nothing left to do (or was stopped) and holds nothing: forget it. */
  ended(endpointId: string): void;
}

/**
 * Delivers one endpoint's due deliveries while its dispatcher holds the endpoint's lease.
 *
 * Order: deliveries are taken in event order (UUIDv7 ids), and a delivery starts only when no
 * delivery of the same subject (email, else contact, else campaign: fanout.ts) is in flight and none
 * of its subject's earlier ones waits before it. So one email's `email.sent` reaches the receiver
 * before its `email.delivered`, one contact's `contact.updated` arrive in the order they happened,
 * while other subjects' deliveries run in parallel. A failed attempt is retried later by the retry
 * schedule (deliveries.state.ts) and does not hold its subject's later deliveries back meanwhile.
 *
 * Concurrency: at most the endpoint's `concurrency` attempts at once, lowered while the receiver
 * struggles ({@link AdaptiveLimit}). A slow endpoint only slows its own pump: each endpoint has one.
 *
 * Reads: a page of due deliveries when the pump starts, when poked (a delivery was queued: the
 * dispatcher's LISTEN, or its periodic look), and while pages come back full; never one per delivery.
 * The pump ends when a read finds nothing and nothing is in flight or unrecorded.
 */
export class EndpointPump {
  readonly limit: AdaptiveLimit;
  private endpoint: LeasedEndpoint;
  private signer: Signer;
  private buffer: DueDelivery[] = [];
  /** Ids read and not yet recorded: never read again meanwhile, so never attempted twice at once. */
  private readonly held = new Set<string>();
  /** Subjects with an attempt in flight. */
  private readonly busy = new Set<string>();
  private inFlight = 0;
  private writing = 0;
  private reading = false;
  private wanted = true;
  private stopping = false;
  private disabledSwept = false;
  private done = false;
  private readonly finished: Promise<void>;
  private finish!: () => void;

  constructor(
    private readonly ctx: PumpContext,
    endpoint: LeasedEndpoint,
  ) {
    this.endpoint = endpoint;
    this.signer = signerFor(ctx.deps, endpoint.id, endpoint.secret);
    this.limit = new AdaptiveLimit(endpoint.concurrency);
    this.finished = new Promise((r) => (this.finish = r));
    this.pump();
  }

  get id(): string {
    return this.endpoint.id;
  }

  /** Attempts in flight now. */
  get active(): number {
    return this.inFlight;
  }

  /** The endpoint as the last lease renewal read it: a new url, secret, concurrency or enabled take effect. */
  update(e: LeasedEndpoint): void {
    if (e.secret !== this.endpoint.secret) this.signer = signerFor(this.ctx.deps, e.id, e.secret);
    this.limit.setMax(e.concurrency);
    this.endpoint = e;
    this.pump();
  }

  /** Deliveries may have been queued or fallen due: read again. */
  poke(): void {
    this.wanted = true;
    this.pump();
  }

  /** Starts nothing more; settles when the attempts in flight are recorded. */
  stop(): Promise<void> {
    this.stopping = true;
    this.pump();
    return this.finished;
  }

  private pump(): void {
    if (this.done) return;
    if (this.stopping || !this.endpoint.enabled) this.drop();
    else {
      this.startReady();
      if (
        this.wanted &&
        !this.reading &&
        this.buffer.length < BUFFER_MAX &&
        (this.buffer.length < PAGE || this.inFlight < this.limit.current)
      )
        void this.read();
    }
    if (!this.endpoint.enabled && !this.stopping && !this.disabledSwept) void this.sweepDisabled();
    this.maybeEnd();
  }

  /** Forgets what was read and not started (it stays PENDING for whoever reads it next). */
  private drop(): void {
    for (const d of this.buffer) this.held.delete(d.id);
    this.buffer = [];
  }

  private startReady(): void {
    const blocked = new Set(this.busy);
    const wait: DueDelivery[] = [];
    for (const d of this.buffer) {
      const subject = d.subject ?? d.id;
      if (this.inFlight >= this.limit.current || blocked.has(subject)) wait.push(d);
      else {
        this.busy.add(subject);
        this.start(d, subject);
      }
      blocked.add(subject);
    }
    this.buffer = wait;
  }

  private start(d: DueDelivery, subject: string): void {
    this.inFlight++;
    const at = this.ctx.deps.clock.now();
    void post(this.ctx.deps, this.endpoint.url, this.signer, d.id, bodyOf(d.payload), this.ctx.agents).then(
      (result) => {
        this.inFlight--;
        this.busy.delete(subject);
        this.limit.observe(result, performance.now());
        this.writing++;
        this.ctx
          .record({ id: d.id, endpointId: this.endpoint.id, attempts: d.attempts, at, result })
          .catch((err: unknown) =>
            // Unrecorded, the delivery stays PENDING as it was and is attempted again (same webhook-id).
            this.ctx.deps.log.error({ err, deliveryId: d.id }, 'recording a webhook attempt failed'),
          )
          .finally(() => {
            this.writing--;
            this.held.delete(d.id);
            this.pump();
          });
        this.pump();
      },
    );
  }

  private async read(): Promise<void> {
    this.reading = true;
    this.wanted = false;
    try {
      const rows = await dueDeliveries(this.ctx.deps.db, this.endpoint.id, [...this.held], PAGE);
      let added = false;
      for (const r of rows)
        if (!this.held.has(r.id)) {
          this.held.add(r.id);
          this.buffer.push(r);
          added = true;
        }
      // Retries falling due may be older than what waits: keep event order.
      if (added) this.buffer.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      if (rows.length === PAGE) this.wanted = true;
    } catch (err) {
      this.ctx.deps.log.error({ err, endpointId: this.endpoint.id }, 'reading due webhook deliveries failed');
      await new Promise((r) => setTimeout(r, READ_RETRY_MS).unref());
      this.wanted = true;
    } finally {
      this.reading = false;
    }
    this.pump();
  }

  private async sweepDisabled(): Promise<void> {
    this.disabledSwept = true;
    this.writing++;
    try {
      await failQueuedOfDisabled(this.ctx.deps.db, this.endpoint.id);
    } catch (err) {
      this.ctx.deps.log.error(
        { err, endpointId: this.endpoint.id },
        'failing the deliveries of a disabled endpoint failed',
      );
    } finally {
      this.writing--;
    }
    this.pump();
  }

  private maybeEnd(): void {
    if (this.done || this.inFlight || this.writing || this.reading) return;
    if (!this.stopping && this.endpoint.enabled && (this.wanted || this.buffer.length)) return;
    this.done = true;
    this.drop();
    this.ctx.ended(this.endpoint.id);
    this.finish();
  }
}
