-- Per-link reports (issue 36, analytics/links.repo.ts): one row per email, link position and URL
-- with its click count and human click count, kept by delivery/outcomes.ts recordClick. Reports over a
-- 1,000,000-email campaign sum these narrow rows; reading its ~200,000 click events' jsonb instead took
-- 230-440 ms (bench/link-stats.ts). Clicks recorded before this migration are summed from their
-- events below (they have no position; `machine` is absent, so they count as human, as they did).
CREATE TABLE "email_link_clicks" (
	"email_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"campaign_id" uuid,
	"workflow_step_id" uuid,
	"position" integer,
	"url" text NOT NULL,
	"clicks" integer DEFAULT 0 NOT NULL,
	"human_clicks" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "email_link_clicks" ADD CONSTRAINT "email_link_clicks_email_id_emails_id_fk" FOREIGN KEY ("email_id") REFERENCES "public"."emails"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "email_link_clicks" ADD CONSTRAINT "email_link_clicks_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "email_link_clicks_key" ON "email_link_clicks" ("email_id", (coalesce("position", -1)), (md5("url")));--> statement-breakpoint
CREATE INDEX "email_link_clicks_campaign_idx" ON "email_link_clicks" ("campaign_id") WHERE "campaign_id" is not null;--> statement-breakpoint
CREATE INDEX "email_link_clicks_step_idx" ON "email_link_clicks" ("workflow_step_id") WHERE "workflow_step_id" is not null;--> statement-breakpoint
INSERT INTO "email_link_clicks" ("email_id", "project_id", "campaign_id", "workflow_step_id", "position", "url", "clicks", "human_clicks")
SELECT ev."email_id", e."project_id", e."campaign_id", e."workflow_step_id", (ev."data"->>'position')::int, ev."data"->>'link',
  count(*), count(*) FILTER (WHERE (ev."data"->>'machine') IS DISTINCT FROM 'true')
FROM "events" ev JOIN "emails" e ON e."id" = ev."email_id"
WHERE ev."name" = 'email.click' AND ev."data"->>'link' IS NOT NULL
GROUP BY 1, 2, 3, 4, 5, 6;
