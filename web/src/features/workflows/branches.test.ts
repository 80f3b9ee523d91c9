import { describe, expect, it } from 'vitest';
import type { Step, StepRun, Transition } from './api';
import { freeOutlets, outletLabel, outletsOf, runOutcome, stepSummary } from './graph';
import {
  branchProblem,
  draftOf,
  newBranch,
  newDraft,
  nextBranchKey,
  serverErrors,
  startBranches,
  toConfig,
} from './stepDraft';

// SPLIT and SWITCH in the editor: drafts, checks, ways out and labels (pure helpers).
const step = (type: Step['type'], config: Record<string, unknown>): Step => ({
  id: 's1',
  workflowId: 'w',
  type,
  name: 'Step',
  config,
  templateId: null,
  createdAt: '',
  updatedAt: '',
});
const split = step('SPLIT', {
  branches: [
    { key: 'A', weight: 30 },
    { key: 'B', label: 'Control', weight: 70 },
  ],
});
const sw = step('SWITCH', {
  branches: [{ key: 'pro', label: 'Pro plan', field: 'data.plan', operator: 'equals', value: 'pro' }],
  defaultLabel: 'Everyone else',
});

describe('SPLIT and SWITCH drafts', () => {
  it('turns a SPLIT draft into its config and round-trips it', () => {
    const d = { ...newDraft('Split'), branches: startBranches('SPLIT') };
    expect(toConfig('SPLIT', d)).toEqual({
      errors: {},
      config: {
        branches: [
          { key: 'A', weight: 50 },
          { key: 'B', weight: 50 },
        ],
      },
    });
    expect(toConfig('SPLIT', draftOf(split)).config).toEqual(split.config);
  });

  it('checks the shares, keys and bounds of a SPLIT in sentences', () => {
    const b = (key: string, weight: number | string) => newBranch(key, weight);
    expect(branchProblem('SPLIT', [b('A', 60), b('B', 30)])).toBe(
      'The shares add up to 90%; make them add up to 100%.',
    );
    expect(branchProblem('SPLIT', [b('A', 100)])).toBe('A split needs at least 2 branches.');
    expect(branchProblem('SPLIT', [b('A', 50), b('a', 50)])).toBe('Two branches are called a: give each its own key.');
    expect(branchProblem('SPLIT', [b('A', 50.5), b('B', 49.5)])).toBe(
      'Branch 1 needs a whole-number share from 0 to 100.',
    );
    expect(branchProblem('SPLIT', [b('A b', 50), b('B', 50)])).toMatch(/^Branch 1 needs a key/);
    expect(toConfig('SPLIT', { ...newDraft('x'), branches: [b('A', 10), b('B', 10)] }).errors).toEqual({
      branches: 'The shares add up to 20%; make them add up to 100%.',
    });
  });

  it('turns a SWITCH draft into branches with conditions and a default label', () => {
    const d = draftOf(sw);
    expect(toConfig('SWITCH', d).config).toEqual(sw.config);
    const blank = { ...newDraft('x'), branches: startBranches('SWITCH') };
    expect(toConfig('SWITCH', blank).errors).toEqual({ branches: 'Branch 1 needs a field to test, e.g. data.plan.' });
    expect(branchProblem('SWITCH', [{ ...newBranch('default'), field: 'data.x' }])).toBe(
      'Branch 1: "default" is the branch taken when none matches; pick another key.',
    );
    expect(nextBranchKey([newBranch('A'), newBranch('C')])).toBe('B');
    expect(serverErrors([{ field: 'config.branches.0.field', message: 'Unknown field' }]).errors).toEqual({
      branches: 'Unknown field',
    });
  });

  it('offers each branch as a way out, labelled on the canvas', () => {
    expect(outletsOf(split)).toEqual([{ branch: 'A' }, { branch: 'B' }]);
    expect(outletsOf(sw)).toEqual([{ branch: 'pro' }, { branch: 'default' }]);
    const taken: Transition = {
      id: 't',
      workflowId: 'w',
      fromStepId: 's1',
      toStepId: 'x',
      branch: 'A',
      waitOutcome: null,
      createdAt: '',
    };
    expect(freeOutlets(split, [taken])).toEqual([{ branch: 'B' }]);
    expect(outletLabel(taken, split)).toBe('A · 30%');
    expect(outletLabel({ branch: 'B' }, split)).toBe('Control · 70%');
    expect(outletLabel({ branch: 'pro' }, sw)).toBe('Pro plan');
    expect(outletLabel({ branch: 'default' }, sw)).toBe('Everyone else');
    expect(outletLabel({ branch: 'yes' })).toBe('yes');
    expect(stepSummary(split)).toBe('A 30% · Control 70%');
    expect(stepSummary(sw)).toBe('Pro plan: plan is "pro"');
    const run = { status: 'COMPLETED', output: { branch: 'B', bucket: 42 } } as unknown as StepRun;
    expect(runOutcome(run)).toBe('branch B');
  });
});
