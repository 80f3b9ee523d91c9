/**
 * Memory of the inbound (bounce) SMTP server under many large messages: N clients, each from an address
 * of its own (127.0.0.x), send a 9 MB message at once; the bench prints the growth of the server
 * process's RSS before and its peak during the round (VmHWM, reset before it), a fresh process per round. Pigeon's inbound server (test/inbound-child.ts,
 * no database: the messages are no reports) beside a bare smtp-server that drains every message and keeps
 * nothing (the floor). Both run with `npm start`'s node flags.
 *   npx tsx bench/inbound-memory.ts          (BENCH_CLIENTS=20,60 by default)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import nodemailer from 'nodemailer';
import { verpAddress } from '../src/emails/verp.js';
import { peakRss, resetPeakRss } from '../test/proc-memory.js';
import path from 'node:path';
import { root, startNodeFlags } from './pigeon-process.js';

const SECRET = 'child-secret-child-secret-child-secret-01';
const counts = (process.env.BENCH_CLIENTS ?? '20,60').split(',').map(Number);
const MB = 1024 * 1024;

async function start(script: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(path.join(root, 'node_modules/.bin/node'), [...startNodeFlags(), '--import', 'tsx', script], {
    cwd: root,
    env: { ...process.env, CHILD_SECRET: SECRET },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once('data', (d: Buffer) => resolve(JSON.parse(d.toString()).port));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { child, port };
}

const to = verpAddress(SECRET, randomUUID(), 'bounces.pigeon.test');
const line = `${'x'.repeat(74)}\r\n`;
const raw = Buffer.concat([
  Buffer.from(`From: b@r.test\r\nTo: ${to}\r\nSubject: Out of office\r\nAuto-Submitted: auto-replied\r\n\r\n`),
  Buffer.from(line.repeat(Math.ceil((9 * MB) / line.length))),
]);

async function round(
  port: number,
  pid: number,
  clients: number,
): Promise<{ beforeMb: number; peakMb: number; seconds: number }> {
  await resetPeakRss(pid);
  const before = await peakRss(pid);
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, i) => {
      const t = nodemailer.createTransport({
        host: '127.0.0.1',
        port,
        secure: false,
        ignoreTLS: true,
        localAddress: `127.0.0.${10 + i}`,
      });
      try {
        await t.sendMail({ envelope: { from: 'b@r.test', to: [to] }, raw });
      } finally {
        t.close();
      }
    }),
  );
  return { beforeMb: before / MB, peakMb: (await peakRss(pid)) / MB, seconds: (performance.now() - t0) / 1000 };
}

const rows: string[] = [];
// A fresh process per round: pages a round allocated would hide the next round's growth.
for (const n of counts) {
  for (const [name, script] of [
    ['Pigeon inbound server', 'test/inbound-child.ts'],
    ['bare smtp-server, drains', 'bench/bare-smtp-child.ts'],
  ] as const) {
    const { child, port } = await start(script);
    try {
      await round(port, child.pid!, 1); // warm: code paths loaded
      const r = await round(port, child.pid!, n);
      rows.push(
        `| ${name} | ${n} × 9 MB | ${r.beforeMb.toFixed(0)} MB | ${r.peakMb.toFixed(0)} MB (+${(r.peakMb - r.beforeMb).toFixed(0)}) | ${r.seconds.toFixed(1)} s |`,
      );
    } finally {
      child.kill('SIGTERM');
    }
  }
}
console.log('| server | clients | RSS before | peak RSS | time |\n|---|---|---|---|---|');
for (const r of rows) console.log(r);
