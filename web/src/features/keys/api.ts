import { api, unwrap } from '../../api/client';

/** Which of a project's two keys. */
export type KeyKind = 'public' | 'secret';

/**
 * `POST /users/@me/projects/:id/regenerate-key` (OWNER or ADMIN): replaces one key, the other keeps
 * working; answers `{id, key, value}` with the new key in full (a secret key is shown only now).
 */
export const regenerateKey = (id: string, key: KeyKind) =>
  unwrap(api.POST('/users/@me/projects/{id}/regenerate-key', { params: { path: { id } }, body: { key } }));
