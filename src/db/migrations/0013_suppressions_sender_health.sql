DROP INDEX "emails_project_created_idx";--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "health_acknowledged_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "health_acknowledged_by" uuid;--> statement-breakpoint
CREATE INDEX "suppressions_project_created_idx" ON "suppressions" USING btree ("project_id","created_at","email");--> statement-breakpoint
CREATE INDEX "emails_project_created_idx" ON "emails" USING btree ("project_id","created_at","status");--> statement-breakpoint
-- The API's reason words replace the stored ones (one representation; src/suppressions/reasons.ts).
UPDATE "suppressions" SET "reason" = CASE upper("reason") WHEN 'HARD_BOUNCE' THEN 'bounce' WHEN 'BOUNCE' THEN 'bounce' WHEN 'COMPLAINT' THEN 'complaint' WHEN 'UNSUBSCRIBE' THEN 'unsubscribe' ELSE 'manual' END WHERE "reason" NOT IN ('bounce', 'complaint', 'manual', 'unsubscribe');--> statement-breakpoint
ALTER TABLE "suppressions" ADD CONSTRAINT "suppressions_reason_check" CHECK ("suppressions"."reason" in ('bounce', 'complaint', 'manual', 'unsubscribe'));