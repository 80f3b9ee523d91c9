/**
 * Cost of serializing answers through their zod response schemas (fastify-type-provider-zod's
 * serializerCompiler, as the service does) beside plain JSON.stringify of the same value, per answer:
 * a GET /contacts page of 100 contacts and a one-recipient POST /v1/send. No database.
 *
 *     npx tsx bench/responses.ts
 */
import { serializerCompiler } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { contactListOut } from '../src/contacts/contacts.schema.js';
import { sendResult } from '../src/emails/api/send.schema.js';

const id = '01a20811-630e-71a6-ad68-151b5a02b159';
const at = '2026-11-23T10:00:00.000Z';
const page = {
  data: Array.from({ length: 100 }, (_, i) => ({
    id,
    email: `c${i}@example.test`,
    subscribed: true,
    snoozedUntil: null,
    data: { plan: 'pro', seats: i, note: 'x'.repeat(40) },
    createdAt: at,
    updatedAt: at,
  })),
  cursor: 'abc',
  hasMore: true,
  total: 1000,
};
const sent = {
  success: true,
  data: { emails: [{ contact: { id, email: 'a@example.test' }, email: id }], timestamp: at },
};

const cases: Array<[string, z.ZodType, unknown, number]> = [
  ['GET /contacts, page of 100', contactListOut, page, 2_000],
  ['POST /v1/send, 1 recipient', sendResult, sent, 50_000],
];
const perCall = (fn: () => unknown, n: number) => {
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn();
  return Number(process.hrtime.bigint() - t) / n / 1000;
};
for (const [name, schema, data, n] of cases) {
  const serialize = serializerCompiler({ schema, method: 'GET', url: '/', httpStatus: '200' } as never);
  perCall(() => serialize(data), 500);
  perCall(() => JSON.stringify(data), 500);
  console.log(
    `${name}: JSON.stringify ${perCall(() => JSON.stringify(data), n).toFixed(1)} µs, zod schema ${perCall(() => serialize(data), n).toFixed(1)} µs`,
  );
}
