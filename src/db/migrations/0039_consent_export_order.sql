-- The consent export (exports/kinds.ts) reads a project's consent entries in pages of 2,000 ordered by
-- (created_at, id), each page after the last one's key. Without an index in that order every page
-- read and sorted all of the project's entries, so an export's time grew with the square of its size.
CREATE INDEX IF NOT EXISTS "consent_events_project_created_idx" ON "consent_events" ("project_id", "created_at", "id");
