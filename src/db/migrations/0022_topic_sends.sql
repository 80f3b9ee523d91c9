-- Marketing mail with a topic (issue 35): a campaign may name a topic; its mail goes only to the
-- topic's members (emails/eligibility.ts), and each mail records the topic it was sent under, checked
-- again when it is claimed for sending. A topic a campaign names cannot be deleted (RESTRICT; the API
-- answers 409 naming the campaigns first). `emails.topic_id` has no foreign key, like `campaign_id`:
-- a check per inserted row would slow a large fan-out, and a mail whose topic is gone is not sent.
ALTER TABLE "campaigns" ADD COLUMN "topic_id" uuid REFERENCES "topics"("id") ON DELETE RESTRICT;--> statement-breakpoint
ALTER TABLE "emails" ADD COLUMN "topic_id" uuid;
