-- A/B/n campaigns with a holdout (issue 36). `variants` ([{key, subject?, body?, from?, fromName?}])
-- and `experiment` ({testPercent, metric, waitMinutes, holdoutPercent}) are the campaign's settings;
-- the rest is the state of its send (campaigns/experiment.ts):
-- * `experiment_seed`: the seed of the recorded random order the audience was shuffled in;
-- * `experiment_phase`: null (not started), 'test' (groups drawn, the test mail going out), 'waiting'
--   (test mail out, waiting for the winner), 'winner' (the winner going to the rest);
-- * `winner_key`, `winner_chosen_at`, `winner_chosen_by` ('auto' at the end of the wait, 'manual').
-- `campaign_groups` holds the drawn groups: the holdout (never mailed, kept for comparison) and the
-- test group of each variant; the winner phase mails the eligible contacts with no group row, so no
-- contact is in two groups and the winner phase never mails a test group again.
-- `emails.winner_phase` is true on mail of the winner phase (null otherwise), so a variant's test
-- figures are read from the emails table alone.
ALTER TABLE "campaigns" ADD COLUMN "variants" jsonb;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "experiment" jsonb;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "experiment_seed" integer;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "experiment_phase" text;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "winner_key" text;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "winner_chosen_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "winner_chosen_by" text;--> statement-breakpoint
ALTER TABLE "emails" ADD COLUMN "winner_phase" boolean;--> statement-breakpoint
-- A variant's test figures read the test groups' mail alone (a tenth to a half of a large campaign).
CREATE INDEX "emails_campaign_test_variant_idx" ON "emails" ("campaign_id", "variant") WHERE "variant" is not null and "winner_phase" is null;--> statement-breakpoint
CREATE TABLE "campaign_groups" (
  "campaign_id" uuid NOT NULL REFERENCES "campaigns"("id") ON DELETE CASCADE,
  "contact_id" uuid NOT NULL,
  "grp" text NOT NULL,
  CONSTRAINT "campaign_groups_pk" PRIMARY KEY ("campaign_id", "contact_id")
);
