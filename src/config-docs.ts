import type { EnvVariable } from './config.js';

/**
 * A variable's row in docs/configuration.md: its default and its meaning, as the reader sees them
 * (markdown). A variable that shares the row of another (`PORT` / `HOST`) names it in `rowOf` and gives
 * its own default when it differs from that row's.
 */
export type EnvVariableDoc = { default: string; meaning: string } | { rowOf: EnvVariable; default?: string };

/**
 * The documentation of every variable, the source of the table in docs/configuration.md
 * (`npm run gen:config-docs` writes it; a test fails when the file differs). Its order is the table's.
 * The mapped type makes a variable added to the schema without a row here fail to compile.
 */
export const ENV_DOCS: { [K in EnvVariable]: EnvVariableDoc } = {
  PORT: { default: '`3000`', meaning: 'where the HTTP server listens' },
  HOST: { rowOf: 'PORT', default: '`0.0.0.0`' },
  PUBLIC_URL: { default: '`http://localhost:$PORT`', meaning: 'base of tracking, unsubscribe and upload URLs' },
  DATA_DIR: { default: '`./data`', meaning: 'embedded database, outbox, uploads, generated secrets' },
  DATABASE_URL: {
    default: 'unset: embedded PostgreSQL in `DATA_DIR/pg`',
    meaning: 'a PostgreSQL 15–18 server, `postgres://…`',
  },
  SMTP_URL: {
    default:
      'unset: outbox, one `.eml` per message in `DATA_DIR/outbox` (files `0600` in a `0700` folder: they hold ' +
      'reset links); as the mail goes nowhere, senders need no verified domain (their mail is unsigned and marked ' +
      '`X-Pigeon-Unverified-Sender: outbox only`) unless `SES_REGION` is set',
    meaning:
      '`smtps://user:pass@host:port` (TLS), `smtp://user:pass@host:port` (STARTTLS required: with credentials ' +
      'the connection fails rather than send them in clear, unless the URL says `?requireTLS=false`) or ' +
      '`smtp://host:port` (a relay without credentials); `?pool=N` pooled connections',
  },
  SES_REGION: {
    default: 'unset',
    meaning:
      'send through Amazon SES in this region (e.g. `eu-west-1`) instead of `SMTP_URL` (SES wins when both are ' +
      "set): raw MIME through the SES v2 `SendEmail` API, Pigeon's DKIM signature kept; credentials from the " +
      'AWS default chain (`AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`, shared files, SSO, instance or task ' +
      'role)',
  },
  SES_CONFIGURATION_SET: {
    default: 'unset',
    meaning:
      'SES configuration set named on every send; give it an SNS event destination for bounces, complaints and ' +
      'deliveries (needs `SES_REGION`)',
  },
  SES_ENDPOINT: {
    default: 'unset: AWS',
    meaning: 'another SES endpoint, for testing (LocalStack); needs `SES_REGION`',
  },
  SNS_TOPIC_ARNS: {
    default: 'unset: none',
    meaning:
      'comma-separated SNS topic ARNs whose messages `POST /webhooks/sns` accepts; others are refused (403) ' +
      'even when correctly signed, before any certificate is fetched. Unset, the route answers 404 (403 with ' +
      '`SES_REGION` set, and a warning at start)',
  },
  DNS_SERVERS: { default: 'system resolver', meaning: '`ip[:port]` list for domain checks and `/v1/verify`' },
  JWT_SECRET: {
    default: 'generated once, kept in `DATA_DIR/secret`',
    meaning: 'signs session cookies and tracking tokens (≥ 32 characters)',
  },
  PROCESS_ROLE: { default: '`all`', meaning: '`api`, `worker` or `all` (one process does both)' },
  RATE_LIMIT_PER_MINUTE: { default: '`1000`', meaning: 'API requests per project per minute; `0` turns it off' },
  AUTH_RATE_LIMIT_PER_IP: {
    default: '`100`',
    meaning:
      'requests per client IP per 15 minutes to the credential endpoints together (login, signup, password ' +
      'reset, e-mail verification); `0` turns it off',
  },
  AUTH_RATE_LIMIT_PER_ACCOUNT: {
    default: '`10`',
    meaning:
      'failed logins per account per 15 minutes, from any IP, before its logins wait (15 minutes, doubling ' +
      'while failures go on, at most a day); a browser that signed in to the account before, and a password ' +
      'reset, are not held back. `0` turns it off. Mails to one address (verification, reset, sign-up notice) ' +
      'are 5 an hour in any case',
  },
  FORM_RATE_LIMIT_PER_IP: {
    default: '`20`',
    meaning:
      'submissions of hosted forms (`POST /f/:id`, all forms together) per client IP per 10 minutes; the ' +
      'pages `/f/:id` and `/confirm/:token` take ten times as many. `0` turns it off',
  },
  FORM_RATE_LIMIT_PER_FORM: {
    default: '`1000`',
    meaning:
      'submissions of one hosted form per 10 minutes from any address: bounds the confirmation mails a ' +
      'flood from many addresses can send. `0` turns it off',
  },
  TRUST_PROXY: {
    default: '`false`',
    meaning:
      'whose `X-Forwarded-For` names the client for the per-IP throttles: `false` believes no proxy (the client ' +
      "is the socket's peer); a comma-separated list of proxy addresses/CIDRs (or `loopback`, `uniquelocal`) " +
      'takes the right-most address not in the list; a hop count `n` (1–10) trusts the `n` nearest addresses, ' +
      "whatever they are (only where nothing but your proxies reaches the port); `true` believes the header's " +
      'left-most entry, which any client can write',
  },
  REDIS_URL: {
    default: 'unset: counters in memory',
    meaning: 'share rate-limit counters (per project and per IP/account) between API processes',
  },
  METRICS_TOKEN: {
    default: 'unset: `/metrics` answers this machine only',
    meaning:
      'bearer token `GET /metrics` wants (16+ characters); unset, only clients whose socket peer is a loopback ' +
      'address may read it (a forwarded address does not count)',
  },
  IDEMPOTENCY_KEY_TTL_HOURS: { default: '`24`', meaning: 'how long an `Idempotency-Key` is remembered' },
  EMAIL_RATE_LIMIT_PER_SECOND: { default: 'unset: no cap', meaning: 'per-project sending throttle' },
  DISABLE_SIGNUPS: {
    default: '`false`',
    meaning: '`true` is `SIGNUP=invite`: new accounts only for invited addresses (others get 403)',
  },
  SIGNUP: {
    default: '`open`, or `invite` when `DISABLE_SIGNUPS=true`',
    meaning:
      'who may create an account: `open` anyone; `invite` only an address with a pending invitation (by password ' +
      'or single sign-on); `sso-only` only through single sign-on (needs `OIDC_ISSUER`), no password sign-up; ' +
      'existing accounts sign in as before. See [Single sign-on](security.md#single-sign-on)',
  },
  OIDC_ISSUER: {
    default: 'unset: no single sign-on',
    meaning:
      'issuer URL of an OpenID Connect provider (its `/.well-known/openid-configuration` is read at the first ' +
      'sign-in); https, or http on localhost only. With `OIDC_CLIENT_ID` and `OIDC_CLIENT_SECRET` (all three or ' +
      'none) the login page offers single sign-on; register `$PUBLIC_URL/auth/oidc/callback` as redirect URI',
  },
  OIDC_CLIENT_ID: { rowOf: 'OIDC_ISSUER' },
  OIDC_CLIENT_SECRET: { rowOf: 'OIDC_ISSUER' },
  OIDC_NAME: {
    default: '`single sign-on`',
    meaning: 'what the login button calls the provider: "Sign in with <OIDC_NAME>", e.g. `Okta`',
  },
  OIDC_SCOPES: {
    default: '`openid email profile`',
    meaning: 'scopes asked of the provider, space-separated; must include `openid` and give the `email` claim',
  },
  WEBHOOK_ALLOW_PRIVATE_ADDRESSES: {
    default: '`false`',
    meaning:
      'let workflow WEBHOOK steps and event webhook endpoints call loopback, private (10/8, 172.16/12, ' +
      '192.168/16, fc00::/7) and shared (100.64/10) addresses; cloud metadata and link-local addresses stay ' +
      'refused',
  },
  TRANSPORT_ALLOW_PRIVATE_ADDRESSES: {
    default: '`false`',
    meaning:
      "let projects' own transports (`/transports`) connect to loopback, private and shared addresses, e.g. a " +
      'relay on this network; the instance transport (`SMTP_URL`) is never checked',
  },
  TRANSPORT_BREAKER_FAILURES: {
    default: '`5`',
    meaning:
      "consecutive transport failures (connection refused or timed out, 421, refused login) within a minute that open a transport's circuit breaker: its mail goes to the next transport of the route",
  },
  TRANSPORT_BREAKER_RETRY_SECONDS: {
    default: '`30`',
    meaning:
      'how long an open breaker waits before one probe mail tries the transport again; doubled each time the probe fails, up to 10 minutes',
  },
  FALLBACK_TRANSPORTS: {
    default: 'unset: none',
    meaning:
      'instance transports tried in order when the instance transport (SMTP_URL / SES_REGION) fails, for mail no routing rule of its project matches: whitespace-separated `smtp://…` / `smtps://…` URLs and `ses://<region>[/<configuration set>]` (e.g. `smtps://user:pass@backup.example.com:465 ses://eu-west-1/pigeon`); routing rules name them `fallback-1`, `fallback-2`, …',
  },
  TRANSPORT_MAX_PER_SECOND: {
    default: 'unset: no ceiling',
    meaning:
      'ceiling of the instance transport\'s adaptive rate, mails a second per worker process; the rate halves on each throttling answer (421/451 "too many", SES Throttling) and climbs back a tenth of the ceiling per clean minute',
  },
  DOMAIN_CONCURRENCY: {
    default: 'gmail.com, googlemail.com, icloud.com, outlook.com, hotmail.com, live.com, yahoo.com … 10–20; aol.com 5',
    meaning:
      'mails to one recipient domain in flight at once, per transport and worker process, as `domain=n,…` (e.g. `gmail.com=30,example.org=2`); replaces the default of a domain it names, other domains have no limit',
  },
  API_DB_POOL_SIZE: { default: '`20`', meaning: "PostgreSQL connections of the API's pool (per process)" },
  WORKER_DB_POOL_SIZE: {
    default: '`24`',
    meaning:
      "PostgreSQL connections of the worker's own pool (per process): its 10 concurrent jobs may hold two each " +
      '(handing a mail over, or dispatching events while holding the dispatch jobs they took over), plus ' +
      "Graphile Worker's listener and the liveness lock",
  },
  MIME_THREADS: {
    default: 'one per core beyond two, at most 4 (none on 1–2 cores)',
    meaning:
      'Worker threads that build and DKIM-sign outgoing mail, off the event loop that drives delivery; `0` ' +
      'builds on the event loop. Each thread is a V8 isolate of its own: about 45 MB more peak RSS for 10–20 % ' +
      'more sending rate on a 2-core machine',
  },
  API_STATEMENT_TIMEOUT_MS: {
    default: '`30000`',
    meaning:
      "PostgreSQL `statement_timeout` of the API's connections; a statement that runs longer, or a request that " +
      'waits as long (at most 10 s) for a free connection, answers 503 with `Retry-After`; `0` turns it off. ' +
      "The worker's connections have none",
  },
  LOG_LEVEL: { default: '`info`', meaning: '`fatal` … `trace`, or `silent`' },
  SYSTEM_EMAIL_FROM: {
    default: "`Pigeon <no-reply@PUBLIC_URL's host>`",
    meaning: 'sender of account mails (verification, password reset)',
  },
  S3_BUCKET: {
    default: 'unset: uploads in `DATA_DIR/uploads`',
    meaning:
      'keep uploaded images in this S3-compatible bucket (then `S3_ACCESS_KEY_ID` and `S3_SECRET_ACCESS_KEY` ' +
      'are required)',
  },
  S3_ENDPOINT: {
    default: 'unset: AWS S3',
    meaning: 'endpoint of an S3-compatible server (MinIO, R2, …), `https://…`',
  },
  S3_REGION: { default: '`us-east-1`', meaning: 'region of the bucket' },
  S3_ACCESS_KEY_ID: { default: 'unset', meaning: 'credentials for the bucket' },
  S3_SECRET_ACCESS_KEY: { rowOf: 'S3_ACCESS_KEY_ID' },
  S3_FORCE_PATH_STYLE: {
    default: '`true` with `S3_ENDPOINT`, else `false`',
    meaning: 'address the bucket as `endpoint/bucket/key` instead of `bucket.endpoint/key`',
  },
  S3_PUBLIC_URL: {
    default: 'unset: Pigeon serves images at `PUBLIC_URL/uploads/…`, streaming them from the bucket',
    meaning:
      "base URL the bucket's objects are publicly readable at (CDN, public bucket); image URLs become " +
      '`S3_PUBLIC_URL/<projectId>/<file>`',
  },
  UPLOAD_QUOTA_MB: {
    default: '`1024`',
    meaning:
      "total size of one project's uploaded images; an upload past it is `413` and nothing is stored; `0`: no " +
      'quota',
  },
  SEGMENT_COMPUTE_TIMEOUT_MS: {
    default: '`300000`',
    meaning:
      "PostgreSQL `statement_timeout` of the worker's segment computes; a compute stopped by it records why in " +
      "the segment's `computeError` and waits for the next 5-minute tick; `0` turns it off",
  },
  SESSION_IDLE_TIMEOUT_HOURS: {
    default: '`24`',
    meaning: 'a dashboard session ends after this long without a request (and 7 days after sign-in in any case)',
  },
  AUDIT_LOG_RETENTION_DAYS: {
    default: '`365`',
    meaning:
      'days the [audit log](audit-log.md) keeps an entry; a nightly job deletes older entries in batches of ' +
      '5,000 (about 04:23 UTC)',
  },
  ENCRYPTION_KEY: {
    default: 'unset: derived from `JWT_SECRET` (or the generated secret)',
    meaning:
      'key material (32+ characters) of the encryption of DKIM private keys, webhook signing secrets and ' +
      "WEBHOOK step headers in the database; keep it out of the database's backups (see " +
      '[security.md](security.md))',
  },
  ENCRYPTION_KEY_PREVIOUS: {
    default: 'unset',
    meaning:
      'earlier values of `ENCRYPTION_KEY`, comma-separated: still read, and everything they sealed is ' +
      're-wrapped with the current key at start (rotation)',
  },
  SMTP_SUBMISSION_PORT: {
    default: 'unset: no SMTP listener',
    meaning:
      'port of the SMTP submission server (e.g. `587`), in the API processes (`PROCESS_ROLE` `all` or `api`); ' +
      'see [Sending through SMTP](smtp-submission.md)',
  },
  SMTP_TLS_CERT: {
    default: 'unset: a self-signed certificate (with a warning)',
    meaning:
      'PEM certificate chain and private key of the STARTTLS of the submission and inbound servers, as file ' +
      'paths or the PEM text; both or neither',
  },
  SMTP_TLS_KEY: { rowOf: 'SMTP_TLS_CERT' },
  SMTP_SUBMISSION_ALLOW_INSECURE: {
    default: '`false`',
    meaning: 'accept AUTH (the secret key) on a connection without TLS',
  },
  BOUNCE_DOMAIN: {
    default: 'unset: the envelope sender is the From address',
    meaning:
      'domain of the VERP envelope senders (`bounces+<token>@BOUNCE_DOMAIN`, one per email) that bounces come ' +
      'back to; see [Bounces and complaints by mail](production.md#bounces-and-complaints-by-mail)',
  },
  INBOUND_SMTP_PORT: {
    default: 'unset: no inbound listener',
    meaning:
      'port of the SMTP server receiving bounces and complaints for `BOUNCE_DOMAIN` (`25` in production), in ' +
      'the API processes; needs `BOUNCE_DOMAIN`',
  },
};
