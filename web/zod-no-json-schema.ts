import { pathToFileURL } from 'node:url';
import type { Plugin } from 'vite';

/**
 * Leaves zod's JSON Schema generator (zod/v4/core/to-json-schema.js) out of the dashboard's bundle.
 * zod's classic schemas import it for `.toJSONSchema()` and the Standard Schema `jsonSchema` methods,
 * which the dashboard never calls (it validates forms; the server writes the OpenAPI document), so
 * tree-shaking cannot drop it: 2.7 kB gzipped on every screen with a form (bench/web-bundle.ts).
 * A call to it throws, so a future use fails loudly instead of producing a wrong schema.
 */
export function zodWithoutJsonSchema(): Plugin {
  const stubbed = /zod\/v4\/core\/to-json-schema\.js$/;
  return {
    name: 'pigeon-zod-without-json-schema',
    apply: 'build',
    enforce: 'pre',
    async load(id) {
      if (!stubbed.test(id)) return null;
      // The create*Method exports run when a schema's `~standard` is read (every form check does):
      // they must return a method, which throws only if called; every other export throws at once.
      const names = Object.keys(await import(pathToFileURL(id).href));
      return [
        `const unavailable = () => { throw new Error('zod JSON Schema generation is not in the dashboard bundle (web/zod-no-json-schema.ts)'); };`,
        ...names.map((n) => `export const ${n} = ${/^create.*Method$/.test(n) ? '() => unavailable' : 'unavailable'};`),
      ].join('\n');
    },
  };
}
