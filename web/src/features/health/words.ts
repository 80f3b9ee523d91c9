import type { ProjectSecurity } from '../../api/types';

export type SenderHealth = ProjectSecurity['senderHealth'];
export type WindowHealth = SenderHealth['last7Days'];
type Kind = 'bounce' | 'complaint';

const percent = new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 2 });

/** A rate (a fraction: 0.012) as people write it: `1.2%`. */
export const pct = (fraction: number): string => percent.format(fraction);

const NAMES: Record<Kind, { rate: string; verb: string }> = {
  bounce: { rate: 'bounce rate', verb: 'bounced' },
  complaint: { rate: 'complaint rate', verb: 'were marked as spam' },
};

/**
 * One rate of one window in words, with the line where sending pauses:
 * "Your bounce rate is 1.2% over the last 7 days (3 of 250 mails bounced); sending pauses at 10%."
 */
export function rateSentence(w: WindowHealth, kind: Kind, h: Pick<SenderHealth, 'thresholds'>): string {
  const rate = kind === 'bounce' ? w.bounceRate : w.complaintRate;
  const n = kind === 'bounce' ? w.bounced : w.complained;
  const t = h.thresholds[kind];
  const counts =
    w.sent === 0
      ? 'no mail was sent'
      : `${n.toLocaleString('en-US')} of ${w.sent.toLocaleString('en-US')} mails ${NAMES[kind].verb}`;
  return `Your ${NAMES[kind].rate} is ${pct(rate)} over the last ${w.days} days (${counts}); mailbox providers start to worry at ${pct(t.warning)}, and campaigns pause at ${pct(t.critical)}.`;
}

/** The state of the project in one sentence: paused, at risk, too little mail to judge, or fine. */
export function summarySentence(h: SenderHealth): string {
  if (h.paused)
    return 'Campaigns and marketing mail of workflows are paused: a bounce or complaint rate reached the critical line. Transactional mail still goes out.';
  if (h.level === 'critical')
    return 'A rate is at the critical line, but sending was resumed by an owner or admin: only mail sent since then counts towards a new pause.';
  if (h.level === 'warning')
    return 'A rate is above the warning line: clean your audience before it reaches the line where campaigns pause.';
  const w = h.last30Days;
  if (w.sent < h.minimumSent)
    return `Fewer than ${h.minimumSent} mails were sent in the last 30 days: too few to judge, so nothing pauses yet.`;
  return 'Your bounce and complaint rates are healthy: sending is not paused.';
}
