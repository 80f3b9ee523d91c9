import { z } from 'zod';
import type { Route } from './routes.js';

/** mulberry32: a small seeded PRNG, so a run is repeated exactly from its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Rng = () => number;
const pick = <T>(rng: Rng, list: readonly T[]): T => list[Math.floor(rng() * list.length)];

/** Strings that have broken services: empty, NUL, unpaired surrogates, huge, SQL and LIKE syntax, dates out of range, … */
const STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\r\n',
  'a\r\nBcc: x@example.test',
  'x'.repeat(3000),
  'y'.repeat(70_000),
  '%',
  '_',
  '\\',
  "'",
  '"',
  "' or 1=1 --",
  '../../etc/passwd',
  '%2e%2e%2f',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '-1',
  '0',
  '1e309',
  '99999999999999999999',
  '-99999999999999999999',
  '1.5',
  'true',
  '<script>alert(1)</script>',
  '{{x}}',
  '{{{x}}}',
  '{% raw %}',
  '🎉',
  'Ω≈ç√',
  '0190aaaa-0000-7000-8000-000000000000',
  '00000000-0000-0000-0000-000000000000',
  'not-a-uuid',
  'a@b',
  'user@example.test',
  'data.plan',
  'event.signup',
  'segment.x',
  'email.sent',
  'contact.subscribed',
  '2030-02-31',
  '0000-01-01',
  '9999-12-31T23:59:59Z',
  '+275760-09-13T00:00:00Z',
  '-infinity',
  'infinity',
  '2030-01-01T25:61:00Z',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'ENABLED',
  'DRAFT',
  'SEGMENT',
  'STATIC',
];

const NUMBERS = [
  0,
  -1,
  1,
  1.5,
  -0.5,
  2 ** 31,
  2 ** 31 - 1,
  -(2 ** 31),
  2 ** 53,
  -(2 ** 53),
  2 ** 63,
  1e308,
  -1e308,
  1e-300,
];

/** A value nested `depth` levels deep. */
const nested = (depth: number, leaf: unknown): unknown => {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { k: v };
  return v;
};

/** A hostile JSON value of any type. */
export function nastyValue(rng: Rng, depth = 0): unknown {
  const r = rng();
  if (r < 0.35) return pick(rng, STRINGS);
  if (r < 0.5) return pick(rng, NUMBERS);
  if (r < 0.55) return pick(rng, [true, false, null]);
  if (r < 0.62) return [];
  if (r < 0.67) return {};
  if (r < 0.72) return nested(pick(rng, [10, 63, 70, 500]), pick(rng, STRINGS));
  if (r < 0.77) return Array.from({ length: pick(rng, [2, 101, 1001, 5000]) }, () => pick(rng, STRINGS));
  if (r < 0.84)
    return JSON.parse(
      '{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}, "toString": 1}',
    );
  if (r < 0.9 && depth < 3)
    return Object.fromEntries([
      [pick(rng, STRINGS), nastyValue(rng, depth + 1)],
      [pick(rng, STRINGS), nastyValue(rng, depth + 1)],
    ]);
  if (depth < 3) return [nastyValue(rng, depth + 1), nastyValue(rng, depth + 1)];
  return pick(rng, STRINGS);
}

/** Raw bodies no JSON serializer writes: broken JSON, other types, prototype keys, absurd nesting and numbers. */
const RAW_BODIES: Array<[string, string]> = [
  ['application/json', '{'],
  ['application/json', '{"a":1,}'],
  ['application/json', 'null'],
  ['application/json', '"just a string"'],
  ['application/json', '123'],
  ['application/json', '[]'],
  ['application/json', '{"__proto__":{"polluted":true}}'],
  ['application/json', '{"constructor":{"prototype":{"polluted":true}}}'],
  ['application/json', '{"data":{"__proto__":{"x":1}}}'],
  ['application/json', '{"n":1e999999}'],
  ['application/json', `{"x":${'['.repeat(50_000)}${']'.repeat(50_000)}}`],
  ['application/json', `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`],
  ['application/json', '{"email":"a\\u0000b@example.test","name":"\\ud800"}'],
  ['application/json; charset=utf-16', '{}'],
  ['text/plain', 'hello'],
  ['text/plain', '{"email":"x@example.test"}'],
  ['application/x-www-form-urlencoded', 'email=x%40example.test&a[b]=1&__proto__[x]=1'],
  [
    'multipart/form-data; boundary=zz',
    '--zz\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\nemail\r\nx\u0000@example.test\r\n--zz--\r\n',
  ],
  ['multipart/form-data; boundary=zz', '--zz\r\nbroken'],
  ['application/xml', '<a/>'],
];

/** The top-level property names of a zod schema (an object, possibly optional or nullable). */
export function propertiesOf(schema: unknown): string[] {
  if (!schema) return [];
  try {
    const json = z.toJSONSchema(schema as z.ZodType, {
      io: 'input',
      unrepresentable: 'any',
      cycles: 'ref',
      reused: 'inline',
    }) as {
      properties?: Record<string, unknown>;
      anyOf?: Array<{ properties?: Record<string, unknown> }>;
    };
    const props = json.properties ?? json.anyOf?.find((s) => s.properties)?.properties ?? {};
    return Object.keys(props);
  } catch {
    return [];
  }
}

/** One fuzzed request: values replace the path parameters, query and body of a valid base. */
export interface FuzzCase {
  what: string;
  params?: Record<string, string>;
  query?: string;
  body?: unknown;
  raw?: { contentType: string; text: string };
}

/** Percent-encodes every UTF-8 byte (encodeURIComponent throws on unpaired surrogates; these become U+FFFD). */
export const enc = (s: string): string =>
  [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

/** `value` with the leaf at a random path (a string, number, boolean or null inside it) replaced by `by`. */
function replaceLeaf(rng: Rng, value: unknown, by: unknown): { path: string; value: unknown } {
  const leaves: string[][] = [];
  const walk = (v: unknown, path: string[]) => {
    if (v && typeof v === 'object') for (const [k, c] of Object.entries(v)) walk(c, [...path, k]);
    else leaves.push(path);
  };
  walk(value, []);
  const path = leaves.length ? pick(rng, leaves) : [];
  if (!path.length) return { path: '', value: by };
  const copy = structuredClone(value) as Record<string, unknown>;
  let at: Record<string, unknown> = copy;
  for (const k of path.slice(0, -1)) at = at[k] as Record<string, unknown>;
  at[path.at(-1)!] = by;
  return { path: path.join('.'), value: copy };
}

/**
 * A hostile case for `r`: one path parameter, one query parameter, one body field or one leaf deep
 * in a valid body replaced, the whole body replaced, or a raw body in another shape; the rest stays
 * valid so that the case gets past the first check. `bases` are valid bodies of the route.
 */
export function fuzzCase(rng: Rng, r: Route, bases: unknown[]): FuzzCase {
  const base = pick(rng, bases.length ? bases : [undefined]);
  const queryKeys = propertiesOf(r.options.schema?.querystring);
  const bodyKeys = propertiesOf(r.options.schema?.body);
  const kinds = [
    ...(r.params.length ? ['param', 'param'] : []),
    'query',
    ...(queryKeys.length ? ['query', 'query', 'query'] : []),
    ...(r.method !== 'GET' ? ['raw', 'body'] : []),
    ...(r.hasBody ? ['field', 'field', 'field', 'nested', 'leaf', 'leaf', 'leaf', 'leaf'] : []),
  ];
  const kind = pick(rng, kinds);
  if (kind === 'param') {
    const p = pick(rng, r.params);
    const v = String(pick(rng, STRINGS));
    return { what: `param ${p}=${JSON.stringify(v.slice(0, 40))}`, params: { [p]: v } };
  }
  if (kind === 'query') {
    const k =
      queryKeys.length && rng() < 0.8
        ? pick(rng, queryKeys)
        : pick(rng, ['x', '__proto__', 'constructor', 'limit', 'page', 'cursor', 'a[b]']);
    const v = rng() < 0.8 ? [String(pick(rng, STRINGS))] : [String(pick(rng, STRINGS)), String(pick(rng, STRINGS))];
    return {
      what: `query ${k}=${JSON.stringify(v.map((s) => s.slice(0, 40)))}`,
      query: v.map((s) => `${enc(k)}=${enc(s)}`).join('&'),
    };
  }
  if (kind === 'raw') {
    const [contentType, text] = pick(rng, RAW_BODIES);
    return { what: `raw ${contentType} ${JSON.stringify(text.slice(0, 40))}`, raw: { contentType, text } };
  }
  if (kind === 'body') {
    const v = nastyValue(rng);
    return { what: `body ${JSON.stringify(v)?.slice(0, 60)}`, body: v };
  }
  if (kind === 'leaf') {
    const by = rng() < 0.7 ? pick(rng, [...STRINGS, ...NUMBERS]) : nastyValue(rng);
    const { path, value } = replaceLeaf(rng, base ?? {}, by);
    return {
      what: `leaf ${path}=${JSON.stringify(by)?.slice(0, 80)} in ${JSON.stringify(base)?.slice(0, 300)}`,
      body: value,
    };
  }
  const obj = base && typeof base === 'object' && !Array.isArray(base) ? { ...(base as Record<string, unknown>) } : {};
  const k = bodyKeys.length && rng() < 0.9 ? pick(rng, bodyKeys) : String(pick(rng, STRINGS));
  const v =
    kind === 'nested'
      ? {
          [String(pick(rng, STRINGS))]: nastyValue(rng),
          ok: { value: nastyValue(rng), persistent: pick(rng, [true, false, 'no']) },
        }
      : nastyValue(rng);
  obj[k] = v;
  return { what: `${kind} ${k}=${JSON.stringify(v)?.slice(0, 60)}`, body: obj };
}
