import { describe, expect, it } from 'vitest';
import { insideWindow, localToUtc, nextLocalTime, nextOpening, spreadMoment } from './delivery-window.js';

const iso = (d: Date) => d.toISOString();
const at = (s: string) => new Date(s);

describe('delivery window rules', () => {
  it('reads local times into UTC in ordinary seasons', () => {
    expect(iso(localToUtc(2026, 1, 15, 9 * 60, 'America/New_York'))).toBe('2026-01-15T14:00:00.000Z');
    expect(iso(localToUtc(2026, 7, 15, 9 * 60, 'America/New_York'))).toBe('2026-07-15T13:00:00.000Z');
    expect(iso(localToUtc(2026, 7, 15, 9 * 60, 'Europe/Berlin'))).toBe('2026-07-15T07:00:00.000Z');
    expect(iso(localToUtc(2026, 7, 15, 9 * 60, 'Asia/Tokyo'))).toBe('2026-07-15T00:00:00.000Z');
    // A day past the month's end rolls over.
    expect(iso(localToUtc(2026, 1, 32, 0, 'UTC'))).toBe('2026-02-01T00:00:00.000Z');
  });

  it('reads times of the DST changes as PostgreSQL does', () => {
    // Spring forward: 02:30 does not exist; read with the offset before the change (03:30 local).
    expect(iso(localToUtc(2026, 3, 8, 150, 'America/New_York'))).toBe('2026-03-08T07:30:00.000Z');
    expect(iso(localToUtc(2026, 3, 29, 150, 'Europe/Berlin'))).toBe('2026-03-29T01:30:00.000Z');
    // Fall back: 01:30 (New York) and 02:30 (Berlin) happen twice; the second one.
    expect(iso(localToUtc(2026, 11, 1, 90, 'America/New_York'))).toBe('2026-11-01T06:30:00.000Z');
    expect(iso(localToUtc(2026, 10, 25, 150, 'Europe/Berlin'))).toBe('2026-10-25T01:30:00.000Z');
    // 09:00 on the change days themselves is an ordinary time, with the new offset.
    expect(iso(localToUtc(2026, 3, 8, 540, 'America/New_York'))).toBe('2026-03-08T13:00:00.000Z');
    expect(iso(localToUtc(2026, 11, 1, 540, 'America/New_York'))).toBe('2026-11-01T14:00:00.000Z');
  });

  it("gives today's local time when it is still ahead, else the next day's", () => {
    // 2026-07-15 is a Wednesday. 08:00 in Berlin = 06:00Z.
    expect(iso(nextLocalTime(at('2026-07-15T06:00:00Z'), 'Europe/Berlin', '09:00'))).toBe('2026-07-15T07:00:00.000Z');
    expect(iso(nextLocalTime(at('2026-07-15T07:00:00Z'), 'Europe/Berlin', '09:00'))).toBe('2026-07-15T07:00:00.000Z');
    expect(iso(nextLocalTime(at('2026-07-15T07:00:01Z'), 'Europe/Berlin', '09:00'))).toBe('2026-07-16T07:00:00.000Z');
    // Listed days only: from Wednesday to the next Monday.
    expect(iso(nextLocalTime(at('2026-07-15T06:00:00Z'), 'Europe/Berlin', '09:00', ['mon']))).toBe(
      '2026-07-20T07:00:00.000Z',
    );
    // Monday after 09:00, Mondays only: a week later.
    expect(iso(nextLocalTime(at('2026-07-20T08:00:00Z'), 'Europe/Berlin', '09:00', ['mon']))).toBe(
      '2026-07-27T07:00:00.000Z',
    );
  });

  it('crosses a DST change to the next day at the right offset', () => {
    // Saturday 2026-03-07 10:00 in New York (EST); the next 09:00 is Sunday, after the change (EDT).
    expect(iso(nextLocalTime(at('2026-03-07T15:00:00Z'), 'America/New_York', '09:00'))).toBe(
      '2026-03-08T13:00:00.000Z',
    );
    // Berlin in autumn: Saturday 2026-10-24 10:00 CEST → Sunday 09:00 CET.
    expect(iso(nextLocalTime(at('2026-10-24T08:00:00Z'), 'Europe/Berlin', '09:00'))).toBe('2026-10-25T08:00:00.000Z');
  });

  it('waits for the next opening of a window', () => {
    const w = { from: '09:00', to: '17:00', days: ['mon', 'tue', 'wed', 'thu', 'fri'] as const };
    const win = { ...w, days: [...w.days] };
    // Wednesday 12:00 Berlin: inside, unchanged.
    expect(insideWindow(at('2026-07-15T10:00:00Z'), 'Europe/Berlin', win)).toBe(true);
    expect(iso(nextOpening(at('2026-07-15T10:00:00Z'), 'Europe/Berlin', win))).toBe('2026-07-15T10:00:00.000Z');
    // Wednesday 22:00 Berlin: Thursday 09:00.
    expect(iso(nextOpening(at('2026-07-15T20:00:00Z'), 'Europe/Berlin', win))).toBe('2026-07-16T07:00:00.000Z');
    // 17:00 is closed (the end is excluded).
    expect(insideWindow(at('2026-07-15T15:00:00Z'), 'Europe/Berlin', win)).toBe(false);
    // Friday 18:00: Monday 09:00.
    expect(iso(nextOpening(at('2026-07-17T16:00:00Z'), 'Europe/Berlin', win))).toBe('2026-07-20T07:00:00.000Z');
    // Saturday in the hours of the window: Monday.
    expect(iso(nextOpening(at('2026-07-18T10:00:00Z'), 'Europe/Berlin', win))).toBe('2026-07-20T07:00:00.000Z');
    // Early morning: the same day's opening.
    expect(iso(nextOpening(at('2026-07-15T03:00:00Z'), 'Europe/Berlin', win))).toBe('2026-07-15T07:00:00.000Z');
  });

  it('spreads mails evenly from the start', () => {
    const start = at('2026-07-15T10:00:00Z');
    expect(iso(spreadMoment(start, 0, 4, 2))).toBe('2026-07-15T10:00:00.000Z');
    expect(iso(spreadMoment(start, 1, 4, 2))).toBe('2026-07-15T10:30:00.000Z');
    expect(iso(spreadMoment(start, 3, 4, 2))).toBe('2026-07-15T11:30:00.000Z');
  });
});
