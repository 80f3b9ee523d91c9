-- Several ways out (issue 37, src/transports/): a project's own transports (SMTP relays, SES accounts)
-- with their secret sealed, its routing rules in order, each transport's circuit breaker shared by
-- every worker process, and the transport each mail was handed to.
CREATE TABLE "transports" (
	"id" uuid PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"settings" jsonb NOT NULL,
	"secret" text,
	"max_per_second" integer,
	"max_connections" integer,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "transports_kind_check" CHECK ("transports"."kind" in ('smtp', 'ses'))
);
--> statement-breakpoint
ALTER TABLE "transports" ADD CONSTRAINT "transports_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "transports_project_name_uq" ON "transports" ("project_id", "name");--> statement-breakpoint
CREATE TABLE "transport_rules" (
	"id" uuid PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"match" jsonb NOT NULL,
	"transports" text[] NOT NULL
);
--> statement-breakpoint
ALTER TABLE "transport_rules" ADD CONSTRAINT "transport_rules_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "transport_rules_project_idx" ON "transport_rules" ("project_id", "position");--> statement-breakpoint
CREATE TABLE "transport_health" (
	"transport" text PRIMARY KEY NOT NULL,
	"project_id" uuid,
	"state" text DEFAULT 'closed' NOT NULL,
	"failures" integer DEFAULT 0 NOT NULL,
	"first_failure_at" timestamp with time zone,
	"opened_at" timestamp with time zone,
	"retry_at" timestamp with time zone,
	"openings" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "emails" ADD COLUMN "transport" text;
