import { jsonSchemaTransformObject } from 'fastify-type-provider-zod';

const RESPONSE_NAMES: Record<string, string> = {
  '4XX': 'Client error: the error envelope',
  '5XX': 'Server error: the error envelope',
  400: 'Bad request',
  204: 'No content',
};

/**
 * The OpenAPI document: schemas registered with an id (the error envelope, Contact, …) become
 * components referenced by `$ref`; the input twins the provider derives for them (`…Input`) are
 * dropped when no request uses them, and responses get a name rather than "Default Response".
 */
export function openApiDocument(arg: Parameters<typeof jsonSchemaTransformObject>[0]) {
  const doc = jsonSchemaTransformObject(arg) as {
    paths?: Record<string, Record<string, { responses?: Record<string, { description?: string }> }>>;
    components?: { schemas?: Record<string, unknown> };
  };
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item)) {
      for (const [code, r] of Object.entries(op.responses ?? {})) {
        if (r.description === 'Default Response')
          r.description = RESPONSE_NAMES[code] ?? (code.startsWith('2') ? 'Success' : r.description);
      }
    }
  }
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
