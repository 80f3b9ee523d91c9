/**
 * Template rendering on hostile input, in one run: for each shape, the time to parse and render it
 * (or to refuse it) at sizes n, 2n, 4n with Pigeon's engine (emails/render/liquid.ts), so the growth can be
 * read off (linear: time doubles with the size), beside the regex renderer it replaced on the shapes
 * of the issue at sizes it can still finish. Also a real newsletter, parsed once and rendered per
 * contact as a campaign does. No database.
 * Run: npx tsx bench/render.ts   (BENCH_LEGACY=0 skips the regex renderer)
 */
import { readFileSync } from 'node:fs';
import { compileTemplate, renderTemplate } from '../src/emails/render/liquid.js';
import { renderMessage } from '../src/emails/render/render.js';

const ms = (t0: number) => (performance.now() - t0).toFixed(1).padStart(8) + ' ms';

async function pigeon(src: string): Promise<string> {
  const t0 = performance.now();
  let what: string;
  try {
    what = `${(await renderTemplate(compileTemplate('html', src + ' '), { a: 'x', items: [1, 2, 3] })).length} chars`;
  } catch (err) {
    what = `refused: ${(err as Error).message.slice(0, 60)}`;
  }
  return `${ms(t0)}  ${what}`;
}

// The regex renderer Pigeon used before (the expression of the issue), for comparison.
const LEGACY =
  /\{\{\{\s*([^{}\s?]+)\s*(?:\?\?\s*(?:'([^']*)'|"([^"]*)"|([^{}]*?)))?\s*\}\}\}|\{\{\s*([^{}\s?]+)\s*(?:\?\?\s*(?:'([^']*)'|"([^"]*)"|([^{}]*?)))?\s*\}\}/g;
const LEGACY_A_TAG = /<a\b(?:[^>"']|"[^"]*"|'[^']*')*>/gi;
function legacy(src: string, re: RegExp): string {
  const t0 = performance.now();
  const n = src.replace(re, '').length;
  return `${ms(t0)}  ${n} chars`;
}

const shapes: Array<[string, (n: number) => string, number, RegExp | null]> = [
  ['"{{a ??" + n spaces + "x"', (n) => '{{a ??' + ' '.repeat(n) + 'x', 1000, LEGACY],
  ['"<a" × n', (n) => '<a'.repeat(n), 5000, LEGACY_A_TAG],
  ['"{{" × n', (n) => '{{'.repeat(n), 100_000, null],
  ['"{{a}}" × n', (n) => '{{a}}'.repeat(n), 2_500, null],
  ['"{% if a %}x{% endif %}" × n', (n) => '{% if a %}x{% endif %}'.repeat(n), 1_000, null],
  ['{% for %} over (1..n)', (n) => `{% for i in (1..${n}) %}{{ i }}{% endfor %}`, 50_000, null],
  ['"p{c:d}" × n (CSS)', (n) => 'p{c:d}'.repeat(n), 40_000, null],
];

for (const [label, make, n, re] of shapes) {
  console.log(label);
  for (const k of [1, 2, 4]) {
    const src = make(n * k);
    console.log(`  n=${String(n * k).padStart(7)}  pigeon ${await pigeon(src)}`);
    if (re && process.env.BENCH_LEGACY !== '0')
      console.log(`  n=${String(n * k).padStart(7)}  regex  ${legacy(src, re)}`);
  }
}

const newsletter = readFileSync(new URL('../test/fixtures/newsletter.html', import.meta.url), 'utf8');
const input = {
  emailId: '0190aaaa-0000-7000-8000-000000000001',
  subject: 'Weekly {{firstName}}',
  body: newsletter,
  type: 'MARKETING' as const,
  tracking: 'ENABLED' as const,
  contactData: { firstName: 'Sam', company: 'A & B' },
  variables: {},
  contact: { id: '0190aaaa-0000-7000-8000-000000000002', email: 'sam@example.test' },
  publicUrl: 'https://p.test',
  secret: 's'.repeat(40),
};
renderMessage(input);
const rounds = 2000;
const t0 = performance.now();
for (let i = 0; i < rounds; i++) renderMessage(input);
console.log(
  `newsletter (${newsletter.length} chars): ${((performance.now() - t0) / rounds).toFixed(2)} ms per message (render, footer check, text part, tracking)`,
);
