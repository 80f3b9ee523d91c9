-- Templates with a topic (issue 35): a MARKETING template's mail (`/v1/send`, workflow SEND_EMAIL steps
-- that name no topic of their own) goes only to the topic's members (emails/eligibility.ts). A topic a
-- template names cannot be deleted (RESTRICT; DELETE /topics answers 409 naming it first,
-- topics/users.ts). Workflow steps keep their `topicId` in their JSON config.
ALTER TABLE "templates" ADD COLUMN "topic_id" uuid REFERENCES "topics"("id") ON DELETE RESTRICT;--> statement-breakpoint
-- DELETE /topics looks up the templates that use the topic (partial: most templates have none).
CREATE INDEX "templates_topic_idx" ON "templates" ("topic_id") WHERE "topic_id" IS NOT NULL;
