import { experimentBody as experimentRules, variantBody } from '../../api/rules';
import { experimentBody, type ExperimentDraft } from './experiment';

/*
 * The composer's checks of an A/B test, with the server's own zod rules (api/rules.ts). A module of its
 * own, loaded when the test is switched on: zod is a quarter of the composer's weight otherwise.
 */

// The dashboard's sentence for each field the server's rules refuse (the rules' own texts name API fields).
const SAY: Record<string, string> = {
  testPercent: 'The test share is a whole percent from 1 to 100.',
  holdoutPercent: 'The holdout is a whole percent from 0 to 50.',
  metric: 'Name the event that counts as a conversion (up to 100 characters).',
  waitMinutes: 'Wait between 15 minutes and 7 days, in whole minutes.',
  from: 'Enter an email address, or leave it empty for the campaign’s.',
  body: 'Write the body, or use the campaign’s.',
  subject: 'The subject must be on one line.',
  fromName: 'The from name has at most 200 characters.',
};
const TOGETHER =
  'The test share and the holdout together are at most 100 % (or a test share of 100 % for a pure split).';

/**
 * What the composer refuses before asking the server, by the API's field path (`experiment.testPercent`,
 * `variants.1.from`, …), checked with the server's own schemas (api/rules.ts); empty when the test can
 * be saved (or is off).
 */
export function experimentProblems(d: ExperimentDraft): Record<string, string> {
  const p: Record<string, string> = {};
  if (!d.enabled) return p;
  const { variants, experiment } = experimentBody(d);
  const e = experimentRules.safeParse(experiment);
  for (const issue of e.success ? [] : e.error.issues) {
    const field = String(issue.path[0] ?? 'testPercent');
    p[`experiment.${field}`] ??= issue.code === 'custom' ? TOGETHER : (SAY[field] ?? issue.message);
  }
  variants!.forEach((v, i) => {
    const r = variantBody.safeParse(v);
    for (const issue of r.success ? [] : r.error.issues) {
      const field = String(issue.path[0]);
      p[`variants.${i}.${field}`] ??= SAY[field] ?? issue.message;
    }
  });
  return p;
}
