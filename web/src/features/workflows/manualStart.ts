import type { ManualStart } from './api';

/** Most contacts one manual start takes (the server's MAX_MANUAL_START). */
export const MAX_MANUAL_START = 1000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Contact ids pasted as text, one per line or separated by commas, spaces or semicolons: the ids
 * (lower-case, each once, in order) and the pieces that are no id.
 */
export function parseContactIds(text: string): { ids: string[]; invalid: string[] } {
  const ids: string[] = [];
  const invalid: string[] = [];
  for (const piece of text.split(/[\s,;]+/).filter(Boolean)) {
    if (!UUID.test(piece)) invalid.push(piece);
    else if (!ids.includes(piece.toLowerCase())) ids.push(piece.toLowerCase());
  }
  return { ids, invalid };
}

/** The picked and pasted ids together, each once, picked first. */
export const mergeIds = (picked: string[], pasted: string[]) => [...new Set([...picked, ...pasted])];

/** What is wrong with a list before it is sent, as a sentence, or null. */
export function startProblem(ids: string[], invalid: string[]): string | null {
  if (invalid.length)
    return `${invalid.length === 1 ? `"${invalid[0]}" is` : `${invalid.length} of the pasted values are`} not a contact id; contact ids look like 0190c5e2-8a4b-7c3d-9e1f-2a3b4c5d6e7f.`;
  if (!ids.length) return 'Pick at least one contact, or paste contact ids.';
  if (ids.length > MAX_MANUAL_START)
    return `That is ${ids.length} contacts; start at most ${MAX_MANUAL_START} at a time.`;
  return null;
}

const contacts = (n: number) => `${n} contact${n === 1 ? '' : 's'}`;

/** The result of a manual start in a sentence: "Started for 3 contacts; 1 contact had already been through it." */
export function startSummary(r: ManualStart): string {
  const started = r.data.length ? `Started for ${contacts(r.data.length)}` : 'Nobody was started';
  const entered = r.skipped.filter((s) => s.reason === 'already_entered').length;
  const running = r.skipped.length - entered;
  const parts = [
    entered ? `${contacts(entered)} had already been through this workflow (re-entry is off)` : '',
    running ? `${contacts(running)} ${running === 1 ? 'is' : 'are'} still in it` : '',
  ].filter(Boolean);
  return `${started}${parts.length ? `; ${parts.join(', and ')}` : ''}.`;
}
