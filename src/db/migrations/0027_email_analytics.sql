-- Know what works (issue 36), the columns every part of it reads:
-- * `human_opened_at` / `human_clicked_at`: the first open and click NOT marked as machine activity
--   (Apple Mail Privacy Protection, security scanners, link previews: emails/tracking/machine.ts).
--   `opened_at` / `clicked_at` keep their raw meaning (Plunk's `opens` and `clicks`).
-- * `workflow_step_id`: the SEND_EMAIL step that queued a workflow's mail, for per-step figures.
-- * `variant`: the A/B/n variant key of a campaign's mail (null outside an experiment).
ALTER TABLE "emails" ADD COLUMN "human_opened_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "emails" ADD COLUMN "human_clicked_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "emails" ADD COLUMN "workflow_step_id" uuid;--> statement-breakpoint
ALTER TABLE "emails" ADD COLUMN "variant" text;--> statement-breakpoint
CREATE INDEX "emails_workflow_step_idx" ON "emails" ("workflow_step_id", "status") WHERE "workflow_step_id" is not null;
