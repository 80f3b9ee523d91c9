-- Scoped API keys (issue 39) are cached by every process like the project keys (src/http/key-cache.ts):
-- a deleted or changed key must stop working at once everywhere, so a change to what the cache holds
-- notifies the same channel. last_used_at is left out: it is written at most once a minute per key and
-- must not empty the caches.
CREATE TRIGGER api_keys_changed
  AFTER UPDATE OF key_hash, name, scopes, allowed_ips, expires_at, project_id OR DELETE ON api_keys
  FOR EACH STATEMENT EXECUTE FUNCTION pigeon_keys_changed();
