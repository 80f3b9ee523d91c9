-- The figures of campaigns past 50,000 recipients (campaigns/figures.ts): one snapshot per campaign
-- of its email counters and experiment figures, counted again in the background once 30 s old, so
-- the stats, the campaign and the list answer at once whatever the campaign's size.
CREATE TABLE "campaign_figures" (
  "campaign_id" uuid PRIMARY KEY NOT NULL REFERENCES "campaigns"("id") ON DELETE CASCADE,
  "data" jsonb NOT NULL,
  "counted_at" timestamp with time zone NOT NULL
);
