-- Workflow triggers beyond an event (issue 36, src/workflows/triggers.ts): a project time zone (IANA name)
-- that schedule triggers read their cron in; when a workflow's trigger counts from (enabled, or its
-- trigger changed: a schedule never fires for a tick before it); and one row per schedule tick, claimed
-- with the unique key (workflow, tick time) so two workers start a tick once, with the last contact
-- started so that a tick resumes after a crash where its last committed batch stopped.
ALTER TABLE "projects" ADD COLUMN "time_zone" text DEFAULT 'UTC' NOT NULL;--> statement-breakpoint
ALTER TABLE "workflows" ADD COLUMN "trigger_since" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "workflows_schedule_idx" ON "workflows" ("project_id") WHERE "enabled" AND "trigger_type" = 'SCHEDULE';--> statement-breakpoint
CREATE TABLE "workflow_schedule_ticks" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workflow_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"tick_at" timestamp with time zone NOT NULL,
	"status" text DEFAULT 'PENDING' NOT NULL,
	"after_contact_id" uuid,
	"started" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "workflow_schedule_ticks" ADD CONSTRAINT "workflow_schedule_ticks_workflow_id_workflows_id_fk" FOREIGN KEY ("workflow_id") REFERENCES "public"."workflows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_schedule_ticks" ADD CONSTRAINT "workflow_schedule_ticks_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "workflow_schedule_ticks_uq" ON "workflow_schedule_ticks" ("workflow_id", "tick_at");--> statement-breakpoint
CREATE INDEX "workflow_schedule_ticks_pending_idx" ON "workflow_schedule_ticks" ("id") WHERE "status" = 'PENDING';
