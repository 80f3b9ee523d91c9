/** The whole database schema; drizzle-kit generates `migrations/` from it. */
export * from './schema/index.js';
