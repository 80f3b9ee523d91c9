/**
 * Causation depth: how workflows that trigger each other are kept from looping (issue "Hardening" 4).
 *
 * A workflow on `contact.subscribed` that unsubscribes and one on `contact.unsubscribed` that
 * resubscribes would, with `allowReentry`, start each other for ever. So every event carries a depth
 * (events.causation_depth): 0 when nobody's workflow caused it (a tracked event, an API call, a
 * person clicking a link); an execution takes the depth of the event that started it (or the deepest
 * event that resumed it); the events its steps cause (UPDATE_CONTACT's `contact.*`, the `email.*`
 * events of a SEND_EMAIL's mail, the unsubscribe of its hard bounce) are one deeper.
 *
 * A dispatch of an event deeper than {@link MAX_CAUSATION_DEPTH} starts and resumes nothing: each
 * execution it would have started is recorded as EXITED with {@link CAUSATION_EXIT_REASON}, so the loop
 * is visible in the workflow's executions, and waiting executions stay as they are (a later event or
 * their timeout still moves them).
 */

/**
 * Why 10: a legitimate chain (a signup workflow that tags a contact, a tag workflow that sends a
 * mail, a workflow on that mail's delivery…) is a handful of links long; ten leaves room for those and
 * bounds a loop to ten rounds of executions and events per contact and starting event.
 */
export const MAX_CAUSATION_DEPTH = 10;

/** `exitReason` of the executions a too-deep event would have started. */
export const CAUSATION_EXIT_REASON = `causation depth limit: this event was caused by a chain of more than ${MAX_CAUSATION_DEPTH} workflow steps (workflows triggering each other)`;

/** Whether an event of causation depth `depth` may start or resume executions. */
export const withinCausationLimit = (depth: number): boolean => depth <= MAX_CAUSATION_DEPTH;
