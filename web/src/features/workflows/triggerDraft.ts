import type { Workflow } from './api';

/** What starts a workflow (the server's triggers.ts says what each needs). */
export type TriggerType = Workflow['triggerType'];

/** The trigger kinds the editor offers, in the order shown, with their labels. */
export const TRIGGER_CHOICES: Array<{ value: TriggerType; label: string }> = [
  { value: 'EVENT', label: 'Event' },
  { value: 'SEGMENT_ENTERED', label: 'Segment entered' },
  { value: 'SEGMENT_EXITED', label: 'Segment exited' },
  { value: 'SCHEDULE', label: 'Schedule' },
  { value: 'MANUAL', label: 'Manual start only' },
];

/** The trigger's inputs as typed (a subset of the step panel's draft). */
export interface TriggerDraft {
  triggerType: TriggerType;
  eventName: string;
  /** SEGMENT_*: the segment; SCHEDULE: the segment whose contacts run, '' for every contact. */
  segmentId: string;
  cron: string;
}

type TriggerErrors = Partial<Record<keyof TriggerDraft, string>>;

/**
 * Checks the trigger inputs before sending (what the server would refuse without asking it) and
 * turns them into `PATCH /workflows/:id {triggerType, triggerConfig}`. The cron itself is checked by
 * the server (its preview says what is wrong as it is typed).
 */
export function triggerBody(d: TriggerDraft): {
  errors: TriggerErrors;
  body: { triggerType: TriggerType; triggerConfig: Record<string, string> };
} {
  const errors: TriggerErrors = {};
  let triggerConfig: Record<string, string> = {};
  switch (d.triggerType) {
    case 'EVENT':
      if (!d.eventName.trim()) errors.eventName = 'Enter the event that starts the workflow';
      triggerConfig = { eventName: d.eventName.trim() };
      break;
    case 'SEGMENT_ENTERED':
    case 'SEGMENT_EXITED':
      if (!d.segmentId) errors.segmentId = 'Pick the segment';
      triggerConfig = { segmentId: d.segmentId };
      break;
    case 'SCHEDULE':
      if (!d.cron.trim()) errors.cron = 'Enter when it runs, e.g. 0 9 * * 1 for Mondays at 09:00';
      triggerConfig = { cron: d.cron.trim(), ...(d.segmentId ? { segmentId: d.segmentId } : {}) };
      break;
    case 'MANUAL':
      break;
  }
  return { errors, body: { triggerType: d.triggerType, triggerConfig } };
}

/** A sentence for the trigger of `w`, for the editor's header and the list: "Starts when …". */
export function triggerSentence(w: Pick<Workflow, 'triggerType' | 'triggerConfig'>, segmentName?: string): string {
  const seg = segmentName ? `"${segmentName}"` : 'its segment';
  switch (w.triggerType) {
    case 'EVENT':
      return w.triggerConfig.eventName
        ? `Starts when "${w.triggerConfig.eventName}" is tracked for a contact.`
        : 'Starts when its event is tracked for a contact.';
    case 'SEGMENT_ENTERED':
      return `Starts each time a contact enters ${seg}.`;
    case 'SEGMENT_EXITED':
      return `Starts each time a contact leaves ${seg}.`;
    case 'SCHEDULE':
      return `Starts on a schedule for every contact of ${w.triggerConfig.segmentId ? seg : 'the project'}.`;
    case 'MANUAL':
      return 'Starts only by hand ("Start for contacts").';
  }
}

/** The trigger node's one-line summary on the graph: the event, the segment move, the schedule in words. */
export function triggerSummary(
  w: Pick<Workflow, 'triggerType' | 'triggerConfig'> & { schedule?: Workflow['schedule'] },
): string {
  switch (w.triggerType) {
    case 'EVENT':
      return w.triggerConfig.eventName ? `When "${w.triggerConfig.eventName}" is tracked` : 'When its event is tracked';
    case 'SEGMENT_ENTERED':
      return 'When a contact enters the segment';
    case 'SEGMENT_EXITED':
      return 'When a contact leaves the segment';
    case 'SCHEDULE':
      return w.schedule?.description ?? `On schedule ${w.triggerConfig.cron ?? ''}`;
    case 'MANUAL':
      return 'Started by hand';
  }
}
