-- Processes cache API key look-ups (src/http/key-cache.ts) and empty their cache on this notification,
-- sent when the change commits: a key rotation, a project disabled or enabled, a project deleted.
CREATE OR REPLACE FUNCTION pigeon_keys_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('pigeon_keys', '');
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER projects_keys_changed
  AFTER UPDATE OF public_key_hash, secret_key_hash, disabled OR DELETE ON projects
  FOR EACH STATEMENT EXECUTE FUNCTION pigeon_keys_changed();
