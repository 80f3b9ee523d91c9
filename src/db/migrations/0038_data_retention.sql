-- Issue 39, data retention and erasure: which mail still uses a shared content (email_contents). Retention
-- deletes contents no mail refers to any more, and erasure checks the same; without this index each
-- check reads every email row of the table.
CREATE INDEX IF NOT EXISTS "emails_content_idx" ON "emails" ("content_id") WHERE "content_id" IS NOT NULL;
