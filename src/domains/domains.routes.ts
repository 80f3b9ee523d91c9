import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps.js';

/** Sender domains (api.md §4.3 domains; decisions.md: domains and verification). */
export async function domainsRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  void app;
  void deps;
}
