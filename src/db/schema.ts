/** The whole database schema; drizzle-kit generates `migrations/` from it (DESIGN.md: one database). */
export * from './schema/index.js';
