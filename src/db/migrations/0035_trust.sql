-- Trust and compliance (issue 39). Sign-in factors: a TOTP secret per user (sealed, lib/secrets.ts) with
-- the last accepted time step (a code is good once, RFC 6238 §5.2), hashed one-time recovery codes,
-- WebAuthn passkeys, single-use challenges (passkey ceremonies, the second sign-in step, OIDC state),
-- OIDC identities; how each session signed in; a project's two-factor requirement and data retention;
-- scoped API keys; the append-only audit log; data exports.
ALTER TABLE "users" ADD COLUMN "totp_secret" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "totp_enabled_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "totp_last_step" bigint;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "method" text DEFAULT 'password' NOT NULL;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "ip" text;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "require_2fa" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "retention" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
CREATE TABLE "recovery_codes" (
  "id" uuid PRIMARY KEY NOT NULL,
  "user_id" uuid NOT NULL REFERENCES "users"("id") ON DELETE cascade,
  "code_hash" text NOT NULL,
  "used_at" timestamp with time zone,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
CREATE INDEX "recovery_codes_user_idx" ON "recovery_codes" ("user_id");--> statement-breakpoint
CREATE TABLE "passkeys" (
  "id" uuid PRIMARY KEY NOT NULL,
  "user_id" uuid NOT NULL REFERENCES "users"("id") ON DELETE cascade,
  "credential_id" text NOT NULL UNIQUE,
  "public_key" text NOT NULL,
  "counter" bigint DEFAULT 0 NOT NULL,
  "transports" text[],
  "name" text NOT NULL,
  "device_type" text,
  "backed_up" boolean DEFAULT false NOT NULL,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "last_used_at" timestamp with time zone
);--> statement-breakpoint
CREATE INDEX "passkeys_user_idx" ON "passkeys" ("user_id");--> statement-breakpoint
CREATE TABLE "auth_challenges" (
  "id" uuid PRIMARY KEY NOT NULL,
  "user_id" uuid REFERENCES "users"("id") ON DELETE cascade,
  "purpose" text NOT NULL,
  "secret_hash" text NOT NULL UNIQUE,
  "data" jsonb DEFAULT '{}'::jsonb NOT NULL,
  "attempts" integer DEFAULT 0 NOT NULL,
  "expires_at" timestamp with time zone NOT NULL,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
CREATE INDEX "auth_challenges_expires_idx" ON "auth_challenges" ("expires_at");--> statement-breakpoint
CREATE TABLE "user_identities" (
  "id" uuid PRIMARY KEY NOT NULL,
  "user_id" uuid NOT NULL REFERENCES "users"("id") ON DELETE cascade,
  "issuer" text NOT NULL,
  "subject" text NOT NULL,
  "email" text,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "last_used_at" timestamp with time zone
);--> statement-breakpoint
CREATE UNIQUE INDEX "user_identities_subject_uq" ON "user_identities" ("issuer", "subject");--> statement-breakpoint
CREATE INDEX "user_identities_user_idx" ON "user_identities" ("user_id");--> statement-breakpoint
CREATE TABLE "api_keys" (
  "id" uuid PRIMARY KEY NOT NULL,
  "project_id" uuid NOT NULL REFERENCES "projects"("id") ON DELETE cascade,
  "name" text NOT NULL,
  "key_hash" text NOT NULL UNIQUE,
  "key_hint" text NOT NULL,
  "scopes" text[] NOT NULL,
  "allowed_ips" text[],
  "expires_at" timestamp with time zone,
  "created_by" uuid REFERENCES "users"("id") ON DELETE set null,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "last_used_at" timestamp with time zone
);--> statement-breakpoint
CREATE INDEX "api_keys_project_idx" ON "api_keys" ("project_id");--> statement-breakpoint
CREATE TABLE "audit_log" (
  "id" uuid PRIMARY KEY NOT NULL,
  "project_id" uuid NOT NULL REFERENCES "projects"("id") ON DELETE cascade,
  "at" timestamp with time zone DEFAULT now() NOT NULL,
  "actor_type" text NOT NULL,
  "actor_id" text,
  "actor_label" text,
  "ip" text,
  "user_agent" text,
  "action" text NOT NULL,
  "target_type" text NOT NULL,
  "target_id" text,
  "changes" jsonb
);--> statement-breakpoint
CREATE INDEX "audit_log_project_at_idx" ON "audit_log" ("project_id", "at" DESC, "id" DESC);--> statement-breakpoint
CREATE INDEX "audit_log_target_idx" ON "audit_log" ("project_id", "target_type", "target_id");--> statement-breakpoint
-- Append-only: no statement may change an entry (retention and a project's deletion remove them).
CREATE FUNCTION "pigeon_audit_log_frozen"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_log entries cannot be changed';
END
$$;--> statement-breakpoint
CREATE TRIGGER "audit_log_frozen" BEFORE UPDATE ON "audit_log" FOR EACH ROW EXECUTE FUNCTION "pigeon_audit_log_frozen"();--> statement-breakpoint
CREATE TABLE "exports" (
  "id" uuid PRIMARY KEY NOT NULL,
  "project_id" uuid NOT NULL REFERENCES "projects"("id") ON DELETE cascade,
  "kind" text NOT NULL,
  "format" text NOT NULL,
  "filter" jsonb,
  "state" text DEFAULT 'queued' NOT NULL,
  "rows_done" bigint DEFAULT 0 NOT NULL,
  "rows_total" bigint,
  "bytes" bigint,
  "storage_key" text,
  "error" text,
  "created_by" jsonb,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "started_at" timestamp with time zone,
  "finished_at" timestamp with time zone,
  "expires_at" timestamp with time zone
);--> statement-breakpoint
CREATE INDEX "exports_project_idx" ON "exports" ("project_id", "created_at" DESC);
