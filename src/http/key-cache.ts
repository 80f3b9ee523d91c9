import pg from 'pg';

/** The channel a trigger on `projects` notifies when keys change, a project is disabled or deleted. */
export const KEYS_CHANNEL = 'pigeon_keys';
/** A cached key is looked up again after this long even without a notification (a safety net). */
const TTL_MS = 60_000;
const RETRY_MS = 1_000;

/** What an API key resolves to. */
export interface KeyProject {
  id: string;
  disabled: boolean;
  /** For a scoped key (`psk_…`, src/keys): the key's row, checked on every request. */
  key?: ScopedKeyRecord;
}

/** A scoped API key as the auth hook checks it (`api_keys`, issue 39). */
export interface ScopedKeyRecord {
  id: string;
  name: string;
  scopes: string[];
  /** CIDRs the key may be used from; null: anywhere. */
  allowedIps: string[] | null;
  /** Epoch milliseconds after which the key is refused; null: never. */
  expiresAt: number | null;
}

/**
 * API key → project, cached in the process so `/v1/track` and `/v1/send` do not look the key up on
 * every request, yet a rotation takes effect at once everywhere: migration 0010 adds a trigger that
 * runs `pg_notify('pigeon_keys')` whenever a project's key hashes or `disabled` change or a project is
 * deleted (migration 0036: a scoped key changed or deleted), and every process LISTENs on its own connection and empties its cache on each notification
 * (delivered when the change commits). The process that made the change empties its own cache itself,
 * before it answers. While the LISTEN connection is down nothing is cached (every request looks its
 * key up), and it reconnects every second. A look-up that began before an invalidation is not cached.
 */
export class KeyCache {
  private readonly entries = new Map<string, { project: KeyProject; at: number }>();
  private generation = 0;
  private client?: pg.Client;
  private listening = false;
  private starting = false;
  private closed = false;
  private retry?: NodeJS.Timeout;

  constructor(private readonly pool: pg.Pool) {}

  /**
   * The project of the key whose SHA-256 is `hash`, from the cache or `load` (which reads the
   * database; null for an unknown key, never cached).
   */
  async lookup(hash: string, load: () => Promise<KeyProject | null>): Promise<KeyProject | null> {
    if (!this.listening) this.start();
    const hit = this.listening ? this.entries.get(hash) : undefined;
    if (hit && Date.now() - hit.at < TTL_MS) return hit.project;
    const generation = this.generation;
    const project = await load();
    if (project && this.listening && generation === this.generation)
      this.entries.set(hash, { project, at: Date.now() });
    return project;
  }

  /** Forgets every cached key (a key, a project's state or the listener changed). */
  invalidate(): void {
    this.generation++;
    this.entries.clear();
  }

  /** Stops listening; later look-ups go to the database. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    this.listening = false;
    this.invalidate();
    const c = this.client;
    this.client = undefined;
    await c?.end().catch(() => undefined);
  }

  private start(): void {
    if (this.starting || this.closed) return;
    this.starting = true;
    // Its own connection, outside the pool: a LISTEN holds it for the life of the process.
    const client = new pg.Client(this.pool.options as pg.ClientConfig);
    client.on('notification', () => this.invalidate());
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    client
      .connect()
      .then(() => client.query(`listen ${KEYS_CHANNEL}`))
      .then(() => {
        if (this.closed) return void client.end().catch(() => undefined);
        this.client = client;
        // Anything cached before (nothing, normally) could have missed a notification.
        this.invalidate();
        this.listening = true;
      })
      .catch(() => this.lost(client));
  }

  private lost(client: pg.Client): void {
    if (this.client && this.client !== client) return;
    this.listening = false;
    this.client = undefined;
    this.invalidate();
    client.end().catch(() => undefined);
    if (this.closed) return;
    clearTimeout(this.retry);
    this.retry = setTimeout(() => {
      this.starting = false;
      this.start();
    }, RETRY_MS);
    this.retry.unref();
  }
}

const caches = new WeakMap<pg.Pool, KeyCache>();

/** The key cache of the process part served by `pool` (one per API pool). */
export function keyCacheFor(pool: pg.Pool): KeyCache {
  let c = caches.get(pool);
  if (!c) {
    c = new KeyCache(pool);
    caches.set(pool, c);
  }
  return c;
}
