-- Per-link reports (issue 36, analytics/links.repo.ts) read the `email.click` events of one campaign
-- or of one workflow step. Without these, both read every click of the project (its whole history):
-- * a campaign's events by (campaign_id, name); partial, as most events (tracks) have no campaign;
-- * a step's clicks by the step a click event names (`data.workflowStepId`, delivery/outcomes.ts
--   recordClick); partial, clicks only, so the index stays small and the step's emails are not joined.
CREATE INDEX "events_campaign_name_idx" ON "events" ("campaign_id", "name") WHERE "campaign_id" is not null;--> statement-breakpoint
CREATE INDEX "events_click_step_idx" ON "events" (("data"->>'workflowStepId')) WHERE "name" = 'email.click';
