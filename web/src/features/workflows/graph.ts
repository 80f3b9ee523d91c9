import type { Step, StepRun, StepType, Transition } from './api';
import { fieldLabel, operatorLabel } from '../../lib/operators';

/** What a step type is called on screen. */
export const STEP_LABELS: Record<StepType, string> = {
  TRIGGER: 'Trigger',
  SEND_EMAIL: 'Send email',
  DELAY: 'Delay',
  WAIT_FOR_EVENT: 'Wait for event',
  CONDITION: 'Condition',
  SPLIT: 'Split',
  SWITCH: 'Switch',
  WEBHOOK: 'Webhook',
  UPDATE_CONTACT: 'Update contact',
  EXIT: 'Exit',
};

/**
 * The way out of a step a new transition takes: a branch (CONDITION yes/no, a SPLIT or SWITCH branch
 * key, a SWITCH's `default`), a wait outcome, or the single next step.
 */
export interface Outlet {
  branch?: string;
  waitOutcome?: 'EVENT' | 'TIMEOUT';
}

/** The branch a SWITCH takes when none of its branches matches (the server's SWITCH_DEFAULT_BRANCH). */
export const SWITCH_DEFAULT = 'default';

/** A SPLIT or SWITCH branch as stored in the step's config. */
interface BranchConfig {
  key: string;
  label?: string;
  weight?: number;
}

const branchesOf = (config: unknown): BranchConfig[] => (config as { branches?: BranchConfig[] }).branches ?? [];

/**
 * The label of an edge: `yes`/`no` for a CONDITION, `event`/`timeout` for a wait, none after other
 * steps; with the step it leaves (`from`), a SPLIT branch shows its share ("A · 30%") and a SWITCH
 * branch its label when it has one ("Pro plan", "otherwise").
 */
export function outletLabel(o: Outlet | Transition, from?: Pick<Step, 'type' | 'config'>): string | null {
  if (o.branch) {
    const b = from ? branchesOf(from.config).find((x) => x.key === o.branch) : undefined;
    if (from?.type === 'SPLIT' && b) return `${b.label || b.key} · ${b.weight}%`;
    if (from?.type === 'SWITCH' && o.branch === SWITCH_DEFAULT)
      return (from.config as { defaultLabel?: string }).defaultLabel || 'otherwise';
    if (from?.type === 'SWITCH' && b?.label) return b.label;
    return o.branch;
  }
  if (o.waitOutcome) return o.waitOutcome.toLowerCase();
  return null;
}

/** Every way out a step has (EXIT: none): SPLIT its branch keys, SWITCH its keys and `default`. */
export function outletsOf(step: Pick<Step, 'type' | 'config'>): Outlet[] {
  const { type } = step;
  if (type === 'EXIT') return [];
  if (type === 'CONDITION') return [{ branch: 'yes' }, { branch: 'no' }];
  if (type === 'WAIT_FOR_EVENT') return [{ waitOutcome: 'EVENT' }, { waitOutcome: 'TIMEOUT' }];
  if (type === 'SPLIT') return branchesOf(step.config).map((b) => ({ branch: b.key }));
  if (type === 'SWITCH')
    return [...branchesOf(step.config).map((b) => ({ branch: b.key })), { branch: SWITCH_DEFAULT }];
  return [{}];
}

const sameOutlet = (t: Transition, o: Outlet) =>
  (t.branch ?? undefined) === o.branch && (t.waitOutcome ?? undefined) === o.waitOutcome;

/** The ways out of `step` not yet connected: where "add a step after" goes. */
export function freeOutlets(step: Step, transitions: Transition[]): Outlet[] {
  const out = transitions.filter((t) => t.fromStepId === step.id);
  return outletsOf(step).filter((o) => !out.some((t) => sameOutlet(t, o)));
}

const UNIT_S = { days: 86_400, hours: 3600, minutes: 60 } as const;

/** `seconds` as the largest whole unit: `{amount: 3, unit: 'days'}` for 259200. */
export function splitSeconds(seconds: number): { amount: number; unit: keyof typeof UNIT_S } {
  for (const unit of ['days', 'hours', 'minutes'] as const) {
    if (seconds % UNIT_S[unit] === 0) return { amount: seconds / UNIT_S[unit], unit };
  }
  return { amount: Math.max(1, Math.round(seconds / 60)), unit: 'minutes' };
}

/** Seconds of `amount` `unit`s. */
export const toSeconds = (amount: number, unit: keyof typeof UNIT_S) => amount * UNIT_S[unit];

const plural = (n: number, unit: string) => `${n} ${n === 1 ? unit.replace(/s$/, '') : unit}`;

/**
 * Every field a step's config may have, whatever its type (the API's per-type configs read as one
 * shape: each step type sets its own, the others are absent).
 */
export interface StepConfigFields {
  eventName?: string;
  /** TRIGGER of a segment or schedule trigger. */
  segmentId?: string;
  /** TRIGGER of a schedule trigger. */
  cron?: string;
  templateId?: string;
  recipient?: { type: 'CONTACT' | 'CUSTOM'; email?: string };
  topicId?: string;
  amount?: number;
  unit?: keyof typeof UNIT_S;
  /** DELAY until the next opening of `window` (in the contact's time zone) instead of a duration. */
  until?: 'window';
  window?: { from: string; to: string; days: string[] };
  timeout?: number;
  field?: string;
  operator?: string;
  value?: unknown;
  url?: string;
  method?: string;
  headers?: Record<string, string>;
  updates?: Record<string, unknown>;
  subscriptionAction?: string;
  reason?: string;
  branches?: Array<{
    key: string;
    label?: string;
    weight?: number;
    field?: string;
    operator?: string;
    value?: unknown;
  }>;
  defaultLabel?: string;
}

/** A CONDITION's or SWITCH branch's condition in words: `Plan equals "pro"`. */
function conditionText(c: { field?: string; operator?: string; value?: unknown }): string {
  const v = c.operator === 'exists' || c.operator === 'notExists' ? '' : ` ${JSON.stringify(c.value)}`;
  return `${fieldLabel(String(c.field))} ${operatorLabel(String(c.operator))}${v}`;
}

/** A one-line summary of a step's config, as its node shows it; `templateName` names SEND_EMAIL's template. */
export function stepSummary(step: Step, templateName?: (id: string) => string | undefined): string {
  const c = step.config as StepConfigFields;
  switch (step.type) {
    case 'TRIGGER':
      return c.eventName ? `When "${c.eventName}" is tracked` : 'Started by hand';
    case 'SEND_EMAIL': {
      const name = c.templateId ? templateName?.(c.templateId) : undefined;
      const to = c.recipient?.type === 'CUSTOM' ? ` to ${c.recipient.email}` : '';
      return `Template: ${name ?? 'unknown'}${to}`;
    }
    case 'DELAY':
      // A wait for the next opening of a send window (read in the contact's time zone).
      if (c.until === 'window' && c.window)
        return `Until the window ${c.window.from}–${c.window.to}, ${c.window.days.join(', ')}`;
      return `Wait ${plural(Number(c.amount), String(c.unit))}`;
    case 'WAIT_FOR_EVENT': {
      const t = typeof c.timeout === 'number' ? splitSeconds(c.timeout) : null;
      return `Until "${c.eventName}"${t ? `, at most ${plural(t.amount, t.unit)}` : ''}`;
    }
    case 'CONDITION':
      return conditionText(c);
    case 'SPLIT':
      return (c.branches ?? []).map((b) => `${b.label || b.key} ${b.weight}%`).join(' · ');
    case 'SWITCH': {
      const first = c.branches?.[0];
      const more = (c.branches?.length ?? 0) - 1;
      return first
        ? `${first.label || first.key}: ${conditionText(first)}${more > 0 ? ` (+${more} more)` : ''}`
        : 'No branch';
    }
    case 'WEBHOOK':
      return `${c.method ?? 'POST'} ${c.url}`;
    case 'UPDATE_CONTACT': {
      const keys = Object.keys(c.updates ?? {});
      const sub = c.subscriptionAction && c.subscriptionAction !== 'none' ? c.subscriptionAction : '';
      return [keys.length ? `Set ${keys.join(', ')}` : '', sub].filter(Boolean).join('; ') || 'No change';
    }
    case 'EXIT':
      return c.reason ? `Exit: ${c.reason}` : 'End of the workflow';
  }
}

/** The outcome a step run reports: a CONDITION's yes/no, a SPLIT or SWITCH branch, a wait's event/timeout, else its status. */
export function runOutcome(run: StepRun): string {
  const o = (run.output ?? {}) as Record<string, unknown>;
  if (typeof o.result === 'boolean') return o.result ? 'yes' : 'no';
  if (typeof o.branch === 'string') return `branch ${typeof o.label === 'string' ? o.label : o.branch}`;
  if (o.outcome === 'EVENT' || o.outcome === 'TIMEOUT') return o.outcome.toLowerCase();
  return run.status.toLowerCase();
}
