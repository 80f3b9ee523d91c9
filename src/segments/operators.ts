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

/** Operators of a workflow CONDITION step: the value operators, equals … notExists. */
export const CONDITION_STEP_OPERATORS = OPERATORS.slice(0, 10) as readonly Operator[];

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

/**
 * What a field holds, for choosing the operators that make sense on it: `text`, `number`, `boolean`,
 * `date`, `list` (a JSON array or object), or `unknown` (a data key the inventory has not seen).
 */
export type ValueType = 'text' | 'number' | 'boolean' | 'date' | 'list' | 'unknown';

/**
 * Value operators that fit each value type, in the order a picker offers them. The compiler accepts
 * more (a `data.<key>` filter takes every value operator, since stored values vary from contact to
 * contact); this is what the dashboard offers, so that nobody is asked whether a number "contains" 4.
 * `exists` / `notExists` fit every type; a field kind that is always set (email, …) drops them
 * through {@link operatorsForField}.
 */
export const OPERATORS_BY_TYPE: Record<ValueType, readonly Operator[]> = {
  text: ['equals', 'notEquals', 'contains', 'notContains', 'exists', 'notExists'],
  number: [
    'equals',
    'notEquals',
    'greaterThan',
    'lessThan',
    'greaterThanOrEqual',
    'lessThanOrEqual',
    'exists',
    'notExists',
  ],
  boolean: ['equals', 'notEquals', 'exists', 'notExists'],
  date: [
    'equals',
    'notEquals',
    'greaterThan',
    'lessThan',
    'greaterThanOrEqual',
    'lessThanOrEqual',
    'within',
    'olderThan',
    'exists',
    'notExists',
  ],
  list: ['contains', 'notContains', 'exists', 'notExists'],
  unknown: OPERATORS_BY_KIND.data,
};

/**
 * The value type of a type name as the fields inventories give it: `GET /contacts/fields` (`string`,
 * `number`, `boolean`, `date`, `object`) and `GET /workflows/fields` (jsonb_typeof: also `array`,
 * `null`). Anything else, or none, is `unknown`.
 */
export function valueTypeOf(inventoryType: string | null | undefined): ValueType {
  switch (inventoryType) {
    case 'string':
      return 'text';
    case 'number':
    case 'boolean':
    case 'date':
      return inventoryType;
    case 'object':
    case 'array':
      return 'list';
    default:
      return 'unknown';
  }
}

/** The value type of the built-in contact fields, whatever the inventory says. */
const BUILT_IN_TYPES: Partial<Record<FieldKind, ValueType>> = {
  email: 'text',
  subscribed: 'boolean',
  contactDate: 'date',
};

/**
 * The value type of `field`: the built-in contact fields have theirs (`createdAt` is a date), other
 * fields hold what the inventory says (`inventoryType`, see {@link valueTypeOf}).
 */
export function valueTypeOfField(field: string, inventoryType?: string | null): ValueType {
  const kind = fieldKind(field);
  return (kind && BUILT_IN_TYPES[kind]) ?? valueTypeOf(inventoryType);
}

/**
 * Operators to offer for `field` holding values of `type`: the operators its kind accepts (what the
 * compiler takes) that also fit the type, in the kind's order. Built-in contact fields have their own
 * type whatever `type` says; event, email-activity and segment fields ignore it. A field of no known
 * kind gets the data operators that fit the type. Never empty.
 */
export function operatorsForField(field: string, type: ValueType = 'unknown'): readonly Operator[] {
  const kind = fieldKind(field) ?? 'data';
  const accepted = OPERATORS_BY_KIND[kind];
  if (kind === 'event' || kind === 'emailActivity' || kind === 'segment') return accepted;
  const fits = OPERATORS_BY_TYPE[BUILT_IN_TYPES[kind] ?? type];
  return accepted.filter((op) => fits.includes(op));
}
