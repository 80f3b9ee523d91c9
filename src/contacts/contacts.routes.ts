import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps.js';

/** Contacts (api.md §4.2, §4.3 contacts). */
export async function contactsRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  void app;
  void deps;
}
