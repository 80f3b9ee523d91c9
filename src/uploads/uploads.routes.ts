import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps.js';

/** Image uploads (api.md §4.3 uploads). */
export async function uploadsRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  void app;
  void deps;
}
