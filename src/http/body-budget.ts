import { Transform } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { inputBudget, type ByteBudget } from '../lib/byte-budget.js';
import { AppError } from './errors.js';

/** Bodies up to this size are read without asking the budget: the common case costs nothing. */
const SMALL_BODY_BYTES = 64 * 1024;
const RETRY_AFTER_SECONDS = 5;

const busy = () =>
  new AppError(
    'INTERNAL_SERVER_ERROR',
    'The server is receiving too many large requests at once; try again in a few seconds',
    {
      status: 503,
      headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
      suggestion: `Retry after ${RETRY_AFTER_SECONDS} seconds.`,
    },
  );

const held = new WeakMap<FastifyRequest, number>();

function release(budget: ByteBudget, req: FastifyRequest): void {
  const n = held.get(req);
  if (n) budget.give(n);
  held.delete(req);
}

/**
 * Installs the `preParsing` hook that holds every request body larger than 64 kB within the process's
 * input budget (lib/byte-budget.ts), so any number of concurrent large requests costs a bounded amount
 * of memory: a body with a `Content-Length` takes its length before a byte is read (503 with
 * `Retry-After` when it does not fit); a chunked one takes its bytes as they arrive and fails with the
 * same 503 once they no longer fit. The bytes are given back when the response is sent or the request
 * is aborted. Bodies over the route's `bodyLimit` are refused by Fastify before this (413).
 */
export function registerBodyBudget(app: FastifyInstance, budget: ByteBudget = inputBudget): void {
  app.addHook('preParsing', async (req, _reply, payload) => {
    const declared = req.headers['content-length'];
    if (declared !== undefined) {
      const n = Number(declared);
      if (!Number.isFinite(n) || n <= SMALL_BODY_BYTES) return payload;
      if (n > req.routeOptions.bodyLimit) return payload; // Fastify answers 413 without reading it
      if (!budget.tryTake(n)) throw busy();
      held.set(req, n);
      return payload;
    }
    if (req.headers['transfer-encoding'] === undefined) return payload;
    let seen = 0;
    return payload.pipe(
      new Transform({
        transform(chunk: Buffer, _enc, done) {
          seen += chunk.length;
          if (seen <= SMALL_BODY_BYTES) return done(null, chunk);
          const first = seen - chunk.length < SMALL_BODY_BYTES ? seen : chunk.length;
          if (!budget.tryTake(first)) return done(busy());
          held.set(req, (held.get(req) ?? 0) + first);
          done(null, chunk);
        },
      }),
    );
  });
  app.addHook('onResponse', async (req) => release(budget, req));
  app.addHook('onRequestAbort', async (req) => release(budget, req));
}
