import { describe, expect, it } from 'vitest';
import { CronError, describeSchedule, dueTick, nextTick, parseCron } from './schedule.js';
import { isTimeZone, canonicalTimeZone } from '../projects/time-zone.js';

describe('schedule triggers (pure)', () => {
  it('takes 5 fields only, and says what is wrong', () => {
    expect(() => parseCron('0 9 * * 1')).not.toThrow();
    for (const bad of ['0 0 9 * * 1', '@daily', '0 9 * *', '0 9 ? * 1', '61 9 * * *', '0 9 * * 8', ''])
      expect(() => parseCron(bad), bad).toThrow(CronError);
    expect(() => parseCron('61 9 * * *')).toThrow(/minute/);
  });

  it('describes common schedules in words, in the zone', () => {
    const cases: Array<[string, string]> = [
      ['0 9 * * 1', 'Every Monday at 09:00 (Europe/Paris)'],
      ['* * * * *', 'Every minute (Europe/Paris)'],
      ['*/15 * * * *', 'Every 15 minutes (Europe/Paris)'],
      ['30 * * * *', 'Every hour at :30 (Europe/Paris)'],
      ['30 8,18 * * *', 'Every day at 08:30 and 18:30 (Europe/Paris)'],
      ['0 7 1 * *', 'On the 1st of every month at 07:00 (Europe/Paris)'],
      ['0 9 * * 1-5', 'Every weekday (Monday to Friday) at 09:00 (Europe/Paris)'],
      ['0 9 * * MON,THU', 'Every Monday and Thursday at 09:00 (Europe/Paris)'],
      ['15 10 * 3 *', 'Every day at 10:15, in March (Europe/Paris)'],
      ['0 9 L * *', 'At times matching "0 9 L * *" (Europe/Paris)'],
    ];
    for (const [cron, text] of cases) expect(describeSchedule(cron, 'Europe/Paris'), cron).toBe(text);
  });

  it('reads the cron in the time zone, across a DST change', () => {
    // 09:00 in Paris is 08:00 UTC in winter, 07:00 UTC in summer.
    expect(nextTick('0 9 * * *', 'Europe/Paris', new Date('2026-03-28T12:00:00Z'))?.toISOString()).toBe(
      '2026-03-29T07:00:00.000Z',
    );
    expect(nextTick('0 9 * * *', 'Europe/Paris', new Date('2026-11-28T12:00:00Z'))?.toISOString()).toBe(
      '2026-11-29T08:00:00.000Z',
    );
  });

  it('the due tick is the latest one at or before now and after since; none before since', () => {
    const since = new Date('2026-11-29T07:00:00Z');
    expect(dueTick('0 9 * * *', 'Europe/Paris', since, new Date('2026-11-29T07:59:59Z'))).toBeNull();
    // Exactly at the tick, and later: the same tick (a claim made twice is one row).
    for (const now of ['2026-11-29T08:00:00Z', '2026-11-29T08:00:40Z', '2026-11-30T07:59:00Z'])
      expect(dueTick('0 9 * * *', 'Europe/Paris', since, new Date(now))?.toISOString(), now).toBe(
        '2026-11-29T08:00:00.000Z',
      );
    // A worker back after three missed ticks fires the latest only.
    expect(dueTick('0 9 * * *', 'UTC', since, new Date('2026-12-02T10:00:00Z'))?.toISOString()).toBe(
      '2026-12-02T09:00:00.000Z',
    );
    // A tick at the moment the trigger was enabled is before it, not after.
    expect(dueTick('0 8 * * *', 'UTC', new Date('2026-11-29T08:00:00Z'), new Date('2026-11-29T08:00:30Z'))).toBeNull();
  });

  it('knows IANA time zones through Intl', () => {
    for (const ok of ['UTC', 'Europe/Paris', 'America/New_York', 'Asia/Kolkata']) expect(isTimeZone(ok), ok).toBe(true);
    for (const bad of ['', 'Mars/Olympus', '+02:00', 'CEST x', 'Europe/Paris; drop'])
      expect(isTimeZone(bad), bad).toBe(false);
    expect(canonicalTimeZone('europe/paris')).toBe('Europe/Paris');
  });
});
