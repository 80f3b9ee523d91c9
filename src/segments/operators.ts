/**
 * The condition language's vocabulary, in a module that imports nothing: the compiler checks filters
 * against these tables and the dashboard's condition builder offers exactly these, so the two cannot
 * drift apart.
 */

/**
 * Operators of condition trees, in a fixed order: keep it, the first ten
 * (equals … notExists) are the workflow CONDITION operators (src/workflows/steps.config.ts).
 */
export const OPERATORS = [
  'equals',
  'notEquals',
  'contains',
  'notContains',
  'greaterThan',
  'lessThan',
  'greaterThanOrEqual',
  'lessThanOrEqual',
  'exists',
  'notExists',
  'within',
  'olderThan',
  'triggered',
  'triggeredWithin',
  'triggeredOlderThan',
  'notTriggered',
  'notTriggeredWithin',
  'memberOfSegment',
  'notMemberOfSegment',
] as const;
export type Operator = (typeof OPERATORS)[number];

/** Units of the time-window operators. */
export const UNITS = ['minutes', 'hours', 'days'] as const;
export type Unit = (typeof UNITS)[number];

/** Nesting limit of `groups[].conditions`, so a hostile tree cannot exhaust the stack or the planner. */
export const MAX_DEPTH = 5;

/** The kinds of field a filter can name, each with its own operators. */
export type FieldKind = 'email' | 'subscribed' | 'contactDate' | 'data' | 'event' | 'emailActivity' | 'segment';

/** Operators each field kind accepts, in the order a picker offers them. */
export const OPERATORS_BY_KIND: Record<FieldKind, readonly Operator[]> = {
  email: ['equals', 'notEquals', 'contains', 'notContains'],
  subscribed: ['equals', 'notEquals'],
  contactDate: [
    'equals',
    'notEquals',
    'greaterThan',
    'lessThan',
    'greaterThanOrEqual',
    'lessThanOrEqual',
    'within',
    'olderThan',
  ],
  data: [
    'equals',
    'notEquals',
    'contains',
    'notContains',
    'greaterThan',
    'lessThan',
    'greaterThanOrEqual',
    'lessThanOrEqual',
    'exists',
    'notExists',
    'within',
    'olderThan',
  ],
  event: ['triggered', 'notTriggered', 'triggeredWithin', 'triggeredOlderThan', 'notTriggeredWithin'],
  emailActivity: ['triggered', 'notTriggered', 'triggeredWithin', 'triggeredOlderThan', 'notTriggeredWithin'],
  segment: ['memberOfSegment', 'notMemberOfSegment'],
};

/** Operators whose value is an amount of `unit`s before now. */
export const WINDOW_OPERATORS: readonly Operator[] = [
  'within',
  'olderThan',
  'triggeredWithin',
  'triggeredOlderThan',
  'notTriggeredWithin',
];

/** Operators that take no value at all. */
export const VALUELESS_OPERATORS: readonly Operator[] = [
  'exists',
  'notExists',
  'triggered',
  'notTriggered',
  'memberOfSegment',
  'notMemberOfSegment',
];

/** Email activities of `email.<kind>` filters (the compiler also takes Plunk's aliases). */
export const EMAIL_ACTIVITIES = ['sent', 'delivered', 'opened', 'clicked', 'bounced', 'complained'] as const;

/** The kind of a field name (`email`, `createdAt`, `data.plan`, `event.signup`, …); null if none. */
export function fieldKind(field: string): FieldKind | null {
  if (field === 'email') return 'email';
  if (field === 'subscribed') return 'subscribed';
  if (field === 'createdAt' || field === 'updatedAt') return 'contactDate';
  if (field.startsWith('data.')) return 'data';
  if (field.startsWith('event.')) return 'event';
  if (field.startsWith('email.')) return 'emailActivity';
  if (field.startsWith('segment.')) return 'segment';
  return null;
}
