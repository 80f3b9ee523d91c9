import type { Clock } from '../src/lib/clock.js';

/** A clock tests move by hand: starts at real time, `advance(ms)` jumps forward, `set(date)` anywhere. */
export class TestClock implements Clock {
  private offset = 0;
  now(): Date {
    return new Date(Date.now() + this.offset);
  }
  advance(ms: number): void {
    this.offset += ms;
  }
  set(date: Date): void {
    this.offset = date.getTime() - Date.now();
  }
}
