import type { FieldError } from '../../api/errors';
import type { Step, StepType, WorkflowFields } from './api';
import { splitSeconds, toSeconds, type StepConfigFields } from './graph';
import { triggerBody, type TriggerType } from './triggerDraft';

/** One key/value row of WEBHOOK headers or UPDATE_CONTACT updates. */
export interface KV {
  key: string;
  value: string;
}

type Unit = 'minutes' | 'hours' | 'days';

/**
 * One branch of a SPLIT (key, label, weight in %) or a SWITCH (key, label and a condition: field,
 * operator, value as typed); each type reads its own inputs.
 */
export interface BranchDraft {
  key: string;
  label: string;
  weight: number | string;
  field: string;
  operator: string;
  value: string;
}

/** The side panel's editable copy of a step: every type's inputs as text, turned into a config on save. */
export interface Draft {
  name: string;
  templateId: string;
  /** SEND_EMAIL's own topic, '' for none (the template's topic then applies). */
  topicId: string;
  /** SEND_EMAIL's fixed recipient (a CUSTOM recipient), '' for the contact in the workflow. */
  recipientEmail: string;
  amount: number | string;
  unit: Unit;
  /** DELAY: for a duration, or until the next opening of a send window in the contact's zone. */
  delayUntil: 'duration' | 'window';
  windowFrom: string;
  windowTo: string;
  windowDays: string[];
  eventName: string;
  timeoutAmount: number | string;
  timeoutUnit: Unit;
  field: string;
  operator: string;
  value: string;
  url: string;
  method: string;
  headers: KV[];
  updates: KV[];
  subscriptionAction: string;
  reason: string;
  /** SPLIT and SWITCH branches, in order (a SWITCH tries them in this order). */
  branches: BranchDraft[];
  /** A SWITCH's name for its default branch (taken when none matches), '' for none. */
  defaultLabel: string;
  /** The TRIGGER step's kind, and its segment and cron (triggerDraft.ts). */
  triggerType: TriggerType;
  segmentId: string;
  cron: string;
}

/** Draft key → message. */
export type DraftErrors = Partial<Record<keyof Draft, string>>;

const EMPTY: Draft = {
  name: '',
  templateId: '',
  topicId: '',
  recipientEmail: '',
  amount: 1,
  unit: 'days',
  delayUntil: 'duration',
  windowFrom: '09:00',
  windowTo: '17:00',
  windowDays: ['mon', 'tue', 'wed', 'thu', 'fri'],
  eventName: '',
  timeoutAmount: '',
  timeoutUnit: 'days',
  field: '',
  operator: 'equals',
  value: '',
  url: '',
  method: 'POST',
  headers: [],
  updates: [],
  subscriptionAction: 'none',
  reason: '',
  branches: [],
  defaultLabel: '',
  triggerType: 'EVENT',
  segmentId: '',
  cron: '',
};

/** Fewest and most branches of a SPLIT, most of a SWITCH (the server's bounds, steps.config.ts). */
export const SPLIT_BRANCHES = { min: 2, max: 5 } as const;
export const MAX_SWITCH_BRANCHES = 10;
/** A branch key as the server takes it (graph.rules.ts BRANCH_KEY). */
const BRANCH_KEY = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/;

/** An empty branch with `key`. */
export const newBranch = (key: string, weight: number | string = 0): BranchDraft => ({
  key,
  label: '',
  weight,
  field: '',
  operator: 'equals',
  value: '',
});

/** The first key of A, B, C… (then B1, B2…) that no branch of `branches` uses yet. */
export function nextBranchKey(branches: BranchDraft[]): string {
  const used = new Set(branches.map((b) => b.key.toLowerCase()));
  const letter = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'.split('').find((l) => !used.has(l.toLowerCase()));
  if (letter) return letter;
  for (let i = 1; ; i++) if (!used.has(`b${i}`)) return `B${i}`;
}

/** The branches a new step of `type` starts with: an even A/B SPLIT, one SWITCH branch; none for other types. */
export function startBranches(type: StepType): BranchDraft[] {
  if (type === 'SPLIT') return [newBranch('A', 50), newBranch('B', 50)];
  if (type === 'SWITCH') return [newBranch('A')];
  return [];
}

/** The sum of the branches' weights, reading an empty or unreadable weight as 0. */
export const weightSum = (branches: BranchDraft[]) =>
  branches.reduce((n, b) => n + (Number.isFinite(Number(b.weight)) ? Number(b.weight) : 0), 0);

/** Operators that take no value. */
export const NO_VALUE = new Set(['exists', 'notExists']);

const show = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/** A fresh draft for a new step of `type`, named after it. */
export function newDraft(name: string): Draft {
  return { ...EMPTY, name };
}

/** The draft of an existing step. */
export function draftOf(step: Step): Draft {
  const c = step.config as StepConfigFields;
  const d: Draft = { ...EMPTY, name: step.name };
  if (step.type === 'SEND_EMAIL')
    Object.assign(d, {
      templateId: c.templateId ?? '',
      topicId: c.topicId ?? '',
      recipientEmail: c.recipient?.type === 'CUSTOM' ? (c.recipient.email ?? '') : '',
    });
  if (step.type === 'DELAY' && c.until === 'window' && c.window)
    Object.assign(d, {
      delayUntil: 'window',
      windowFrom: c.window.from,
      windowTo: c.window.to,
      windowDays: c.window.days,
    });
  else if (step.type === 'DELAY') Object.assign(d, { amount: c.amount, unit: c.unit });
  if (step.type === 'WAIT_FOR_EVENT' || step.type === 'TRIGGER') d.eventName = c.eventName ?? '';
  if (step.type === 'TRIGGER') Object.assign(d, { segmentId: c.segmentId ?? '', cron: c.cron ?? '' });
  if (step.type === 'WAIT_FOR_EVENT' && typeof c.timeout === 'number') {
    const t = splitSeconds(c.timeout);
    Object.assign(d, { timeoutAmount: t.amount, timeoutUnit: t.unit });
  }
  if (step.type === 'CONDITION')
    Object.assign(d, { field: c.field, operator: c.operator, value: c.value === undefined ? '' : show(c.value) });
  if (step.type === 'WEBHOOK') {
    Object.assign(d, {
      url: c.url,
      method: c.method ?? 'POST',
      headers: Object.entries(c.headers ?? {}).map(([key, value]) => ({ key, value: String(value) })),
    });
  }
  if (step.type === 'UPDATE_CONTACT') {
    Object.assign(d, {
      updates: Object.entries(c.updates ?? {}).map(([key, value]) => ({ key, value: show(value) })),
      subscriptionAction: c.subscriptionAction ?? 'none',
    });
  }
  if (step.type === 'EXIT') d.reason = c.reason ?? '';
  if (step.type === 'SPLIT' || step.type === 'SWITCH') {
    d.branches = (c.branches ?? []).map((b) => ({
      ...newBranch(b.key, b.weight ?? 0),
      label: b.label ?? '',
      field: b.field ?? '',
      operator: b.operator ?? 'equals',
      value: b.value === undefined ? '' : show(b.value),
    }));
    d.defaultLabel = c.defaultLabel ?? '';
  }
  return d;
}

/** A typed value: JSON numbers, booleans and null as such, anything else as the text. */
export function parseValue(text: string): unknown {
  const t = text.trim();
  if (/^(-?\d+(\.\d+)?|true|false|null)$/.test(t) || /^[[{"]/.test(t)) {
    try {
      return JSON.parse(t);
    } catch {
      /* plain text */
    }
  }
  return text;
}

/** A CONDITION value by the field's type in the inventory: a number field gets a number, a text field the text as typed. */
function conditionValue(d: Pick<Draft, 'field' | 'value'>, fields?: WorkflowFields): unknown {
  const type = fields?.fields.find((f) => f.field === d.field)?.type;
  if (type === 'string') return d.value;
  return parseValue(d.value);
}

/**
 * Checks a draft before sending (what the server would refuse) and turns it into the step's config.
 * @returns `errors` by draft key (empty: valid) and the `config` to send.
 */
export function toConfig(
  type: StepType,
  d: Draft,
  fields?: WorkflowFields,
): { errors: DraftErrors; config: Record<string, unknown> } {
  const errors: DraftErrors = {};
  if (!d.name.trim()) errors.name = 'Give the step a name';
  const need = (key: keyof Draft, ok: boolean, message: string) => {
    if (!ok) errors[key] = message;
  };
  const num = (v: number | string) => (v === '' ? NaN : Number(v));
  let config: Record<string, unknown> = {};
  switch (type) {
    case 'SEND_EMAIL':
      need('templateId', !!d.templateId, 'Pick a template');
      need(
        'recipientEmail',
        !d.recipientEmail.trim() || /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(d.recipientEmail.trim()),
        'Enter an email address, or leave it empty to send to the contact',
      );
      config = {
        templateId: d.templateId,
        ...(d.topicId ? { topicId: d.topicId } : {}),
        ...(d.recipientEmail.trim() ? { recipient: { type: 'CUSTOM', email: d.recipientEmail.trim() } } : {}),
      };
      break;
    case 'DELAY':
      if (d.delayUntil === 'window') {
        const hhmm = /^([01]\d|2[0-3]):[0-5]\d$/;
        need('windowFrom', hhmm.test(d.windowFrom), 'Choose when the window opens');
        need(
          'windowTo',
          hhmm.test(d.windowTo) && (!hhmm.test(d.windowFrom) || d.windowTo > d.windowFrom),
          'Choose when the window closes, after it opens',
        );
        need('windowDays', d.windowDays.length > 0, 'Choose at least one day');
        config = { until: 'window', window: { from: d.windowFrom, to: d.windowTo, days: d.windowDays } };
        break;
      }
      need('amount', num(d.amount) > 0, 'Enter a duration above 0');
      config = { amount: num(d.amount), unit: d.unit };
      break;
    case 'WAIT_FOR_EVENT': {
      need('eventName', !!d.eventName.trim(), 'Enter the event to wait for');
      const t = num(d.timeoutAmount);
      need('timeoutAmount', d.timeoutAmount === '' || t > 0, 'Enter a timeout above 0, or leave it empty');
      config = {
        eventName: d.eventName.trim(),
        ...(d.timeoutAmount !== '' && t > 0 ? { timeout: Math.round(toSeconds(t, d.timeoutUnit)) } : {}),
      };
      break;
    }
    case 'CONDITION':
      need('field', !!d.field.trim(), 'Pick or type a field, e.g. data.plan');
      config = {
        field: d.field.trim(),
        operator: d.operator,
        ...(NO_VALUE.has(d.operator) ? {} : { value: conditionValue(d, fields) }),
      };
      break;
    case 'WEBHOOK':
      need('url', /^https?:\/\/\S+$/.test(d.url.trim()), 'Enter an http(s) URL');
      need(
        'headers',
        d.headers.every((h) => h.key.trim()),
        'Every header needs a name',
      );
      config = {
        url: d.url.trim(),
        method: d.method,
        ...(d.headers.length ? { headers: Object.fromEntries(d.headers.map((h) => [h.key.trim(), h.value])) } : {}),
      };
      break;
    case 'UPDATE_CONTACT':
      need(
        'updates',
        d.updates.every((u) => u.key.trim()),
        'Every update needs a key',
      );
      config = {
        updates: Object.fromEntries(d.updates.map((u) => [u.key.trim(), parseValue(u.value)])),
        subscriptionAction: d.subscriptionAction,
      };
      break;
    case 'EXIT':
      config = d.reason.trim() ? { reason: d.reason.trim() } : {};
      break;
    case 'SPLIT':
    case 'SWITCH': {
      const problem = branchProblem(type, d.branches);
      if (problem) errors.branches = problem;
      const label = (b: BranchDraft) => (b.label.trim() ? { label: b.label.trim() } : {});
      config =
        type === 'SPLIT'
          ? { branches: d.branches.map((b) => ({ key: b.key.trim(), ...label(b), weight: Number(b.weight) })) }
          : {
              branches: d.branches.map((b) => ({
                key: b.key.trim(),
                ...label(b),
                field: b.field.trim(),
                operator: b.operator,
                ...(NO_VALUE.has(b.operator) ? {} : { value: conditionValue(b, fields) }),
              })),
              ...(d.defaultLabel.trim() ? { defaultLabel: d.defaultLabel.trim() } : {}),
            };
      break;
    }
    case 'TRIGGER': {
      const t = triggerBody(d);
      Object.assign(errors, t.errors);
      config = t.body.triggerConfig;
      break;
    }
  }
  return { errors, config };
}

/**
 * What is wrong with the branches of a SPLIT or SWITCH, as a sentence (the first problem found), or
 * null: their number, each key (format, unique, `default` kept for a SWITCH's default), a SPLIT's
 * whole-number weights adding up to 100, a SWITCH branch's field.
 */
export function branchProblem(type: 'SPLIT' | 'SWITCH', branches: BranchDraft[]): string | null {
  const min = type === 'SPLIT' ? SPLIT_BRANCHES.min : 1;
  const max = type === 'SPLIT' ? SPLIT_BRANCHES.max : MAX_SWITCH_BRANCHES;
  if (branches.length < min)
    return type === 'SPLIT' ? `A split needs at least ${min} branches.` : 'A switch needs at least one branch.';
  if (branches.length > max) return `A ${type === 'SPLIT' ? 'split' : 'switch'} has at most ${max} branches.`;
  const seen = new Set<string>();
  for (const [i, b] of branches.entries()) {
    const key = b.key.trim();
    const which = `Branch ${i + 1}`;
    if (!BRANCH_KEY.test(key))
      return `${which} needs a key of letters, digits, _ or - (at most 32, e.g. A or pro-users).`;
    if (seen.has(key.toLowerCase())) return `Two branches are called ${key}: give each its own key.`;
    seen.add(key.toLowerCase());
    if (type === 'SWITCH' && key.toLowerCase() === 'default')
      return `${which}: "default" is the branch taken when none matches; pick another key.`;
    if (type === 'SPLIT') {
      const w = Number(b.weight);
      if (b.weight === '' || !Number.isInteger(w) || w < 0 || w > 100)
        return `${which} needs a whole-number share from 0 to 100.`;
    }
    if (type === 'SWITCH' && !b.field.trim()) return `${which} needs a field to test, e.g. data.plan.`;
  }
  if (type === 'SPLIT') {
    const sum = weightSum(branches);
    if (sum !== 100) return `The shares add up to ${sum}%; make them add up to 100%.`;
  }
  return null;
}

const SERVER_KEYS: Record<string, keyof Draft> = {
  name: 'name',
  'config.templateId': 'templateId',
  'config.topicId': 'topicId',
  'config.recipient.email': 'recipientEmail',
  'config.amount': 'amount',
  'config.unit': 'unit',
  'config.window': 'windowFrom',
  'config.window.from': 'windowFrom',
  'config.window.to': 'windowTo',
  'config.window.days': 'windowDays',
  'config.eventName': 'eventName',
  'config.timeout': 'timeoutAmount',
  'config.field': 'field',
  'config.operator': 'operator',
  'config.value': 'value',
  'config.url': 'url',
  'config.method': 'method',
  'config.subscriptionAction': 'subscriptionAction',
  'config.reason': 'reason',
  'triggerConfig.eventName': 'eventName',
  'triggerConfig.segmentId': 'segmentId',
  'triggerConfig.cron': 'cron',
  triggerType: 'triggerType',
};

/**
 * The server's field errors (`config.amount`, `config.headers.X-Key` …) at the draft's inputs.
 * @returns the errors by draft key and whether every one found an input.
 */
export function serverErrors(fieldErrors: FieldError[]): { errors: DraftErrors; all: boolean } {
  const errors: DraftErrors = {};
  let all = true;
  for (const fe of fieldErrors) {
    const key =
      SERVER_KEYS[fe.field] ??
      (fe.field.startsWith('config.headers')
        ? 'headers'
        : fe.field.startsWith('config.updates')
          ? 'updates'
          : fe.field.startsWith('config.branches') || fe.field === 'config.defaultLabel'
            ? 'branches'
            : undefined);
    if (key) errors[key] = fe.message;
    else all = false;
  }
  return { errors, all };
}
