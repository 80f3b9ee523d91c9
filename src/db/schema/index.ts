export * from './accounts.js';
export * from './contacts.js';
export * from './messaging.js';
export * from './campaigns.js';
export * from './segments.js';
export * from './workflows.js';
export * from './webhooks.js';
export * from './topics.js';
