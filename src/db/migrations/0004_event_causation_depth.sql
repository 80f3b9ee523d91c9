ALTER TABLE "events" ADD COLUMN "causation_depth" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "workflow_executions" ADD COLUMN "causation_depth" integer DEFAULT 0 NOT NULL;