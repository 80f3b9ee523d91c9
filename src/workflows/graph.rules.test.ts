import { describe, expect, it } from 'vitest';
import {
  configChangeBreak,
  graphProblems,
  newEdgeBreak,
  outletsOf,
  ruleError,
  type RuleEdge,
  type RuleStep,
} from './graph.rules.js';

// The graph rules as pure functions (the API's 422s over them are in workflows.branch.test.ts).
const step = (id: string, type: string, name: string, config: Record<string, unknown> = {}): RuleStep => ({
  id,
  type,
  name,
  config,
});
const split = step('s', 'SPLIT', 'Split 1', {
  branches: [
    { key: 'A', weight: 50 },
    { key: 'B', weight: 50 },
  ],
});
const sw = step('w', 'SWITCH', 'By plan', {
  branches: [{ key: 'pro', field: 'data.plan', operator: 'equals', value: 'pro' }],
});
const trigger = step('t', 'TRIGGER', 'Trigger');
const a = step('a', 'DELAY', 'Wait a day');
const b = step('b', 'EXIT', 'Done');
const steps = [trigger, split, sw, a, b];
const edge = (id: string, fromStepId: string, toStepId: string, branch: string | null = null): RuleEdge => ({
  id,
  fromStepId,
  toStepId,
  branch,
  waitOutcome: null,
});

describe('workflow graph rules', () => {
  it('gives SPLIT its branch keys and SWITCH its keys and default as outlets', () => {
    expect(outletsOf(split)).toEqual([{ branch: 'A' }, { branch: 'B' }]);
    expect(outletsOf(sw)).toEqual([{ branch: 'pro' }, { branch: 'default' }]);
    expect(outletsOf(step('c', 'CONDITION', 'c'))).toEqual([{ branch: 'yes' }, { branch: 'no' }]);
    expect(outletsOf(b)).toEqual([]);
    expect(outletsOf(a)).toEqual([{}]);
  });

  it('checks a new edge out of a SPLIT or SWITCH by its branch, naming the step', () => {
    const edges = [edge('e1', 't', 's'), edge('e2', 's', 'a', 'A')];
    const add = (from: RuleStep, to: RuleStep, branch: string | null = null, waitOutcome: string | null = null) =>
      newEdgeBreak(steps, edges, { from, to, branch, waitOutcome });
    expect(add(split, b, 'B')).toBeNull();
    expect(add(sw, b, 'default')).toBeNull();
    expect(add(split, b)).toMatchObject({ code: 'branch_required', field: 'branch', stepId: 's' });
    expect(add(split, b)?.message).toBe('Step "Split 1" is a SPLIT step: a transition from it needs a branch (A, B)');
    expect(add(split, b, 'C')).toMatchObject({
      code: 'branch_unknown',
      message: 'Step "Split 1" has no branch C; its branches are A, B',
    });
    expect(add(split, b, 'A')).toMatchObject({
      code: 'branch_taken',
      transitionId: 'e2',
      message: 'The "A" branch of step "Split 1" already leads to "Wait a day"',
    });
    expect(add(split, b, 'B', 'EVENT')).toMatchObject({ code: 'branch_not_allowed', field: 'waitOutcome' });
    expect(add(a, b, 'A')).toMatchObject({ code: 'branch_not_allowed', field: 'branch' });
    expect(add(a, split)).toMatchObject({ code: 'cycle', path: ['s', 'a'] });
    expect(add(split, trigger, 'B')).toMatchObject({ code: 'trigger_incoming' });
  });

  it('names the step, the branch and the edge when a config change drops a connected branch', () => {
    const edges = [edge('e2', 's', 'a', 'A'), edge('e3', 's', 'b', 'B')];
    const onlyA = {
      branches: [
        { key: 'A', weight: 100 },
        { key: 'C', weight: 0 },
      ],
    };
    expect(configChangeBreak(split, onlyA, edges)).toMatchObject({
      code: 'branch_connected',
      transitionId: 'e3',
      branch: 'B',
      message: 'Step "Split 1" has an edge for branch B, which this change removes; remove that edge first',
    });
    expect(configChangeBreak(split, split.config, edges)).toBeNull();
    expect(configChangeBreak(a, { amount: 2, unit: 'days' }, edges)).toBeNull();
  });

  it('lists every SPLIT and SWITCH branch without an edge, as one 422', () => {
    const edges = [edge('e1', 't', 's'), edge('e2', 's', 'a', 'A'), edge('e4', 'w', 'b', 'pro')];
    const problems = graphProblems(steps, edges);
    expect(problems.map((p) => p.message)).toEqual([
      'Step "Split 1" has no edge for branch B',
      'Step "By plan" has no edge for branch default',
    ]);
    const err = ruleError(problems, 'enabled');
    expect(err.message).toBe('Step "Split 1" has no edge for branch B (and 1 more)');
    expect(err.errors).toEqual([
      { field: 'enabled', code: 'branch_unconnected', message: 'Step "Split 1" has no edge for branch B' },
      { field: 'enabled', code: 'branch_unconnected', message: 'Step "By plan" has no edge for branch default' },
    ]);
    expect(err.details).toMatchObject({ rule: 'branch_unconnected', stepId: 's', branch: 'B' });
    // A CONDITION without its "no" edge still runs (it ends there), as it always did.
    expect(graphProblems([step('c', 'CONDITION', 'c')], [])).toEqual([]);
  });
});
