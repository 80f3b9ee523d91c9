/**
 * The campaign composer's own checks before it asks the server (required fields, the sender, the
 * audience, the A/B test's rules loaded once the test is on), and the server's A/B field paths as the
 * composer keys them.
 */
import { useEffect, useState } from 'react';
import type { Format } from '../email-editor/content';
import type { AudienceValue } from './AudiencePicker';
import type { ExperimentDraft } from './experiment';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface Fields {
  name: string;
  subject: string;
  body: string;
  fromLocal: string;
  fromName: string;
  replyTo: string;
  format: Format;
}

/** What the composer refuses before asking the server, by field; empty when the campaign can be saved. */
export function problemsOf(
  v: Fields,
  domain: string,
  audience: AudienceValue,
  exp: ExperimentDraft,
  checks: Checks | null,
): Record<string, string> {
  const problems: Record<string, string> = {};
  if (!v.name.trim()) problems.name = 'Name is required';
  if (!v.subject.trim()) problems.subject = 'Subject is required';
  if (!v.body.trim() && v.format !== 'blocks') problems.body = 'Body is required';
  if (!domain) problems.from = 'Verify a sender domain first (Domains)';
  else if (!EMAIL.test(`${v.fromLocal.trim()}@${domain}`)) problems.from = 'Enter the part before the @';
  if (v.replyTo.trim() && !EMAIL.test(v.replyTo.trim())) problems.replyTo = 'Enter an email address';
  if (audience.audienceType === 'SEGMENT' && !audience.segmentId) problems.segmentId = 'Choose a segment';
  if (!exp.enabled) return problems;
  // The checks arrive within moments of switching the test on; until then, nothing is sent unchecked.
  return {
    ...problems,
    ...(checks ? checks(exp) : { experiment: 'The A/B test is still loading: save again in a moment.' }),
  };
}

export type Checks = (d: ExperimentDraft) => Record<string, string>;

/** The A/B test's checks (experimentChecks.ts, which brings zod), loaded once the test is switched on. */
export function useExperimentChecks(enabled: boolean): Checks | null {
  const [checks, setChecks] = useState<Checks | null>(null);
  useEffect(() => {
    if (enabled && !checks) void import('./experimentChecks').then((m) => setChecks(() => m.experimentProblems));
  }, [enabled, checks]);
  return checks;
}

/**
 * A server field path of the A/B fields as the composer keys them: the server names a variant by its
 * key where it checked one variant (`variants.B.body`), zod by its index (`variants.1.body`).
 */
export function byIndex(field: string, exp: ExperimentDraft): string {
  const m = /^variants\.([A-Z])\.(.*)$/.exec(field);
  if (!m) return field;
  const i = exp.variants.findIndex((v) => v.key === m[1]);
  return i < 0 ? 'variants' : `variants.${i}.${m[2]}`;
}
