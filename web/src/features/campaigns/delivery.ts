import type { Campaign, CampaignBody } from './api';

/** Send windows and local time in the composer (docs/send-windows.md). */
export type DeliveryMode = 'now' | 'spread' | 'local-time';
export const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export const DAY_LABELS: Record<(typeof DAYS)[number], string> = {
  mon: 'Mon',
  tue: 'Tue',
  wed: 'Wed',
  thu: 'Thu',
  fri: 'Fri',
  sat: 'Sat',
  sun: 'Sun',
};

export interface DeliveryDraft {
  mode: DeliveryMode;
  spreadHours: number | string;
  localTime: string;
  windowOn: boolean;
  from: string;
  to: string;
  days: string[];
}

export function deliveryDraftOf(c?: Campaign): DeliveryDraft {
  const d = c?.delivery;
  return {
    mode: d?.mode ?? 'now',
    spreadHours: d?.spreadHours ?? 4,
    localTime: d?.localTime ?? '09:00',
    windowOn: Boolean(d?.window),
    from: d?.window?.from ?? '09:00',
    to: d?.window?.to ?? '17:00',
    days: d?.window?.days ?? ['mon', 'tue', 'wed', 'thu', 'fri'],
  };
}

/** `delivery` of the campaign body: null for plain "now" (today's behaviour). */
export function deliveryBody(d: DeliveryDraft): CampaignBody['delivery'] {
  if (d.mode === 'now' && !d.windowOn) return null;
  return {
    mode: d.mode,
    ...(d.mode === 'spread' ? { spreadHours: Number(d.spreadHours) } : {}),
    ...(d.mode === 'local-time' ? { localTime: d.localTime } : {}),
    ...(d.windowOn ? { window: { from: d.from, to: d.to, days: d.days as (typeof DAYS)[number][] } } : {}),
  };
}

/** The same choice as the preview's query (`days` comma-separated). */
export function previewQuery(d: DeliveryDraft): Record<string, string | number> {
  return {
    mode: d.mode,
    ...(d.mode === 'spread' ? { spreadHours: Number(d.spreadHours) } : {}),
    ...(d.mode === 'local-time' ? { localTime: d.localTime } : {}),
    ...(d.windowOn ? { from: d.from, to: d.to, days: d.days.join(',') } : {}),
  };
}

const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;

/** What the composer refuses before asking the server, by field (`delivery.…`), in sentences. */
export function deliveryProblems(d: DeliveryDraft, experiment: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  const hours = Number(d.spreadHours);
  if (d.mode === 'spread' && (!Number.isInteger(hours) || hours < 1 || hours > 72))
    out['delivery.spreadHours'] = 'Spread over a whole number of hours from 1 to 72.';
  if (d.mode === 'local-time' && !HHMM.test(d.localTime))
    out['delivery.localTime'] = 'Choose the local time to send at.';
  if (d.windowOn) {
    if (!HHMM.test(d.from)) out['delivery.window.from'] = 'Choose when the window opens.';
    if (!HHMM.test(d.to)) out['delivery.window.to'] = 'Choose when the window closes.';
    else if (HHMM.test(d.from) && d.to <= d.from) out['delivery.window.to'] = 'The window must close after it opens.';
    if (d.days.length === 0) out['delivery.window.days'] = 'Choose at least one day.';
    if (d.mode === 'local-time' && HHMM.test(d.localTime) && (d.localTime < d.from || d.localTime >= d.to))
      out['delivery.localTime'] = 'The local time must lie inside the window.';
  }
  if (experiment && (d.mode !== 'now' || d.windowOn))
    out['delivery.mode'] = 'An A/B test sends its test mail at once: send it now, without a window.';
  return out;
}

/** "Sending until Tue 09:00" for a campaign whose last mail is due later (the person's zone). */
export function sendingUntil(endsAt: string | null | undefined, now = new Date()): string | null {
  if (!endsAt || Date.parse(endsAt) <= now.getTime()) return null;
  const when = new Intl.DateTimeFormat(undefined, {
    weekday: 'short',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(new Date(endsAt));
  return `Sending until ${when}`;
}
