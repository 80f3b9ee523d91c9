-- Contact search matches the name fields of `data` too (GET /contacts?search=, contacts.repo.ts NAME_TEXT):
-- a trigram index over exactly that expression keeps a substring search an index scan (BitmapOr with
-- contacts_email_trgm) instead of a scan of the project's contacts.
CREATE INDEX "contacts_name_trgm" ON "contacts" USING gin ((lower(coalesce("data"->>'firstName', '') || ' ' || coalesce("data"->>'lastName', '') || ' ' || coalesce("data"->>'name', '') || ' ' || coalesce("data"->>'first_name', '') || ' ' || coalesce("data"->>'last_name', ''))) gin_trgm_ops);
