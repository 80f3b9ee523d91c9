DROP INDEX "events_project_name_time_idx";--> statement-breakpoint
CREATE INDEX "events_project_name_time_contact_idx" ON "events" USING btree ("project_id","name","created_at","contact_id");