/**
 * Node's `http` and `https` modules, taken as their CommonJS objects. An ESM `import … from 'node:http'`
 * builds the module's namespace, which reads every export, and `http`'s lazy `WebSocket`,
 * `CloseEvent` and `MessageEvent` load Node's bundled undici: about 17 MB of memory in a process that
 * never opens a WebSocket. `process.getBuiltinModule` (Node.js 22.3+) returns the same objects without
 * reading them.
 */
export const http = process.getBuiltinModule('node:http');
export const https = process.getBuiltinModule('node:https');
