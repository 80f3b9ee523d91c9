-- Issue 39, the audit log's retention: the nightly job deletes entries older than
-- AUDIT_LOG_RETENTION_DAYS in batches, oldest first across all projects; this index lets each batch
-- find its rows without scanning the table.
CREATE INDEX "audit_log_at_idx" ON "audit_log" ("at");
