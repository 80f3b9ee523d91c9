import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// Each rule that several paths apply is written in one module (docs/architecture.md, "The rules and
// where each is written"). These checks keep it so: the SQL that applies a rule may appear in its
// owner only, so a second spelling in another module fails here, naming the file and line.
const root = path.resolve(import.meta.dirname, '..', 'src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [p] : [];
  });
}

/** Lines of code (comments dropped) of every module of src/ matching `pattern`, as `file:line`. */
function spelledAt(pattern: RegExp): string[] {
  const hits: string[] = [];
  for (const file of sources(root)) {
    const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' '));
    text.split('\n').forEach((line, i) => {
      const code = line.replace(/(^|\s)\/\/.*$/, '');
      if (pattern.test(code)) hits.push(`${path.relative(root, file)}:${i + 1}`);
    });
  }
  return hits;
}
const files = (hits: string[]) => [...new Set(hits.map((h) => h.replace(/:\d+$/, '')))];

describe('one owner per rule', () => {
  it('a contact subscription is changed in contacts/subscription.ts only', () => {
    expect(files(spelledAt(/set subscribed\s*=|\bsubscribed\s*=\s*coalesce|\.set\(\{\s*subscribed/i))).toEqual([
      'contacts/subscription.ts',
    ]);
  });
  it('the audit log is written by audit/audit.ts only (recordAudit, which masks secrets)', () => {
    expect(files(spelledAt(/insert into audit_log|insert\(auditLog\)/i))).toEqual(['audit/audit.ts']);
  });
  it('an address is suppressed through suppressions.repo.ts only', () => {
    expect(files(spelledAt(/insert into suppressions|insert\(suppressions\)/i))).toEqual([
      'suppressions/suppressions.repo.ts',
    ]);
  });
  it('the workflows an event starts and the waits it ends are read in workflows/listeners.ts only', () => {
    expect(
      files(
        spelledAt(
          /trigger_type\s*=\s*'EVENT'|'WAIT_FOR_EVENT'\s+and\s+s\.config|trigger_config->>'eventName'|config->>'eventName'/,
        ),
      ),
    ).toEqual(['workflows/listeners.ts']);
  });
  it('a verified sender is spelled in domains/verified.ts only', () => {
    expect(files(spelledAt(/\bd\.verified\b|domains\.verified,\s*true|right\([^)]*length\(d\.domain\)/))).toEqual([
      'domains/verified.ts',
    ]);
  });
  it('what a bounce or complaint costs is written in feedback/consequences.ts only', () => {
    expect(files(spelledAt(/bounceType:\s*'(Permanent|Transient)'|Event\([^)]*'email\.(complaint|bounce)'/))).toEqual([
      'feedback/consequences.ts',
    ]);
  });
  it('machine activity is judged in emails/tracking/machine.ts only, and human times written in outcomes.ts (its engagement.ts) only', () => {
    expect(files(spelledAt(/\bMACHINE_AGENTS\b|\bAPPLE_NETWORKS\b|\bAPPLE_MPP_USER_AGENT\b|new BlockList\(/))).toEqual([
      'emails/tracking/machine-signatures.ts', // the data, defined
      'emails/tracking/machine.ts',
    ]);
    expect(files(spelledAt(/human_(opened|clicked)_at\s*=\s*(coalesce|null)/i))).toEqual([
      'emails/delivery/engagement.ts', // part of outcomes.ts, the module of email status changes
    ]);
  });
  it('topic membership is spelled in topics/membership.ts only (inTopicSql)', () => {
    // The choice's row, else the topic's default: `subscription_default = 'opt-out'` outside SQL schema files.
    expect(files(spelledAt(/subscription_default\s*=\s*'opt-out'/i))).toEqual(['topics/membership.ts']);
  });
  it('the rules of a valid workflow graph are written in workflows/graph.rules.ts only', () => {
    expect(
      files(spelledAt(/'(single_outgoing|branch_taken|branch_unknown|branch_unconnected|wait_outcome_taken)'/)),
    ).toEqual(['workflows/graph.rules.ts']);
  });
});
