import type { FastifyInstance } from 'fastify';
import type { Deps } from './deps.js';
import { projectsRoutes } from './projects/projects.routes.js';
import { systemRoutes } from './system/system.routes.js';
import { usersRoutes } from './users/users.routes.js';

/**
 * Every feature's routes. Each feature folder exports one `(app, deps) => Promise<void>`; add it here.
 */
export async function featureRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  for (const register of [systemRoutes, usersRoutes, projectsRoutes]) {
    await app.register(async (scope) => register(scope, deps));
  }
}
