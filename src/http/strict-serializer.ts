import { isDeepStrictEqual } from 'node:util';
import { serializerCompiler } from 'fastify-type-provider-zod';

/**
 * The zod response serializer plus a check that the schema changed nothing: the JSON it writes must
 * equal `JSON.stringify` of what the handler answered (key order aside). A schema that lacks a key
 * (which the plain serializer would silently drop), renames, coerces or rejects a value makes the
 * request fail with a 500 and a line on stderr naming the route, status and the first difference.
 * Used by the test harness, so every test checks the response schemas of the routes it calls; the
 * running service uses the plain {@link serializerCompiler}.
 */
export const strictSerializerCompiler: typeof serializerCompiler = (route) => {
  const serialize = serializerCompiler(route);
  const where = `${route.method} ${route.url} ${route.httpStatus ?? ''}`.trim();
  return (data) => {
    let out: string;
    try {
      out = serialize(data);
    } catch (err) {
      const cause = (err as { cause?: { issues?: unknown } }).cause?.issues ?? err;
      process.stderr.write(`response schema of ${where} rejects the answer: ${JSON.stringify(cause).slice(0, 2000)}\n`);
      throw err;
    }
    const raw = JSON.stringify(data);
    const want = raw === undefined ? null : JSON.parse(raw);
    const got = JSON.parse(out);
    if (!isDeepStrictEqual(got, want)) {
      const diff = firstDifference(want, got, '');
      process.stderr.write(`response schema of ${where} changes the answer at ${diff}\n`);
      throw new Error(`The response schema of ${where} changes the answer at ${diff}`);
    }
    return out;
  };
};

/** The path of the first difference between two JSON values, with both sides, for the error line. */
function firstDifference(a: unknown, b: unknown, path: string): string {
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) {
      const x = (a as Record<string, unknown>)[k];
      const y = (b as Record<string, unknown>)[k];
      if (!isDeepStrictEqual(x, y)) return firstDifference(x, y, `${path}/${k}`);
    }
  }
  return `${path || '/'}: answered ${JSON.stringify(a)?.slice(0, 200)}, serialized ${JSON.stringify(b)?.slice(0, 200)}`;
}
