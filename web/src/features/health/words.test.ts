import { describe, expect, it } from 'vitest';
import { pct, rateSentence, summarySentence, type SenderHealth, type WindowHealth } from './words';

const thresholds = { bounce: { warning: 0.05, critical: 0.1 }, complaint: { warning: 0.001, critical: 0.005 } };
const win = (days: number, sent: number, bounced: number, complained: number): WindowHealth => ({
  days,
  sent,
  bounced,
  complained,
  bounceRate: sent ? bounced / sent : 0,
  complaintRate: sent ? complained / sent : 0,
  bounceLevel: 'healthy',
  complaintLevel: 'healthy',
  level: 'healthy',
});
const health = (patch: Partial<SenderHealth> = {}): SenderHealth => ({
  level: 'healthy',
  last7Days: win(7, 250, 3, 0),
  last30Days: win(30, 1000, 12, 1),
  paused: false,
  acknowledgedAt: null,
  acknowledgedBy: null,
  thresholds,
  minimumSent: 100,
  ...patch,
});

describe('sender health in words', () => {
  it('writes rates as people do', () => {
    expect(pct(0.012)).toBe('1.2%');
    expect(pct(0.001)).toBe('0.1%');
    expect(pct(0)).toBe('0%');
    expect(pct(0.12345)).toBe('12.35%');
  });

  it('says the rate, the window, the counts and the lines', () => {
    expect(rateSentence(health().last7Days, 'bounce', health())).toBe(
      'Your bounce rate is 1.2% over the last 7 days (3 of 250 mails bounced); mailbox providers start to worry at 5%, and campaigns pause at 10%.',
    );
    expect(rateSentence(health().last30Days, 'complaint', health())).toBe(
      'Your complaint rate is 0.1% over the last 30 days (1 of 1,000 mails were marked as spam); mailbox providers start to worry at 0.1%, and campaigns pause at 0.5%.',
    );
    expect(rateSentence(win(7, 0, 0, 0), 'bounce', health())).toContain('(no mail was sent)');
  });

  it('sums the state up: paused, resumed, warning, too little mail, healthy', () => {
    expect(summarySentence(health({ paused: true, level: 'critical' }))).toMatch(
      /^Campaigns and marketing mail .* paused/,
    );
    expect(summarySentence(health({ level: 'critical' }))).toMatch(/resumed/);
    expect(summarySentence(health({ level: 'warning' }))).toMatch(/warning line/);
    expect(summarySentence(health({ last30Days: win(30, 40, 0, 0) }))).toMatch(/Fewer than 100 mails/);
    expect(summarySentence(health())).toMatch(/healthy/);
  });
});
