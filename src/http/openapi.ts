import { jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { scopeOfRoute } from '../keys/scopes.js';

const RESPONSE_NAMES: Record<string, string> = {
  '4XX': 'Client error: the error envelope',
  '5XX': 'Server error: the error envelope',
  400: 'Bad request',
  204: 'No content',
};

/** The path a newcomer looks for first: the reference opens with it (and the rest of its tag). */
export const FIRST_PATH = '/v1/send';

/**
 * Paths in reading order: {@link FIRST_PATH}, then the other paths of its tag (the Plunk-compatible
 * `/v1` API), then the rest as the routes were registered. Swagger UI lists tags in the order their
 * first operation appears, so this also puts that tag first.
 */
function orderPaths<T>(paths: Record<string, T>, tagsOf: (item: T) => string[]): Record<string, T> {
  const first = paths[FIRST_PATH];
  if (!first) return paths;
  const tag = tagsOf(first)[0];
  const entries = Object.entries(paths);
  const rank = (path: string, item: T) => (path === FIRST_PATH ? 0 : tag && tagsOf(item).includes(tag) ? 1 : 2);
  // Array.prototype.sort is stable: within a rank the registration order stays.
  return Object.fromEntries(entries.sort(([a, x], [b, y]) => rank(a, x) - rank(b, y)));
}

/**
 * The OpenAPI document: schemas registered with an id (the error envelope, Contact, …) become
 * components referenced by `$ref`; the input twins the provider derives for them (`…Input`) are
 * dropped when no request uses them, responses get a name rather than "Default Response", each
 * operation a scoped key may call says its scope (`x-scope` and a sentence of its description,
 * keys/scopes.ts), and `POST /v1/send` comes first.
 */
export function openApiDocument(arg: Parameters<typeof jsonSchemaTransformObject>[0]) {
  const doc = jsonSchemaTransformObject(arg) as {
    paths?: Record<
      string,
      Record<
        string,
        {
          tags?: string[];
          description?: string;
          'x-scope'?: string;
          responses?: Record<string, { description?: string }>;
        }
      >
    >;
    components?: { schemas?: Record<string, unknown> };
  };
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item)) {
      // OpenAPI's `/contacts/{id}` is Fastify's `/contacts/:id`.
      const scope = scopeOfRoute(method.toUpperCase(), path.replace(/\{(\w+)\}/g, ':$1'));
      if (scope) {
        op['x-scope'] = scope;
        const note = `Scoped API keys need the \`${scope}\` scope.`;
        op.description = op.description ? `${op.description}\n\n${note}` : note;
      }
      for (const [code, r] of Object.entries(op.responses ?? {})) {
        if (r.description === 'Default Response')
          r.description = RESPONSE_NAMES[code] ?? (code.startsWith('2') ? 'Success' : r.description);
      }
    }
  }
  if (doc.paths) doc.paths = orderPaths(doc.paths, (item) => Object.values(item).flatMap((op) => op.tags ?? []));
  const schemas = doc.components?.schemas ?? {};
  // Keep an input twin when the paths or a kept schema reference it, until nothing more is referenced.
  const kept = new Set(Object.keys(schemas).filter((k) => !k.endsWith('Input')));
  for (let grew = true; grew;) {
    const text = JSON.stringify([doc.paths, [...kept].map((k) => schemas[k])]);
    const more = Object.keys(schemas).filter((k) => !kept.has(k) && text.includes(`"#/components/schemas/${k}"`));
    more.forEach((k) => kept.add(k));
    grew = more.length > 0;
  }
  for (const name of Object.keys(schemas)) if (!kept.has(name)) delete schemas[name];
  return doc as ReturnType<typeof jsonSchemaTransformObject>;
}
