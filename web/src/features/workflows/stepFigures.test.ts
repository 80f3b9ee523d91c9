import { describe, expect, it } from 'vitest';
import { percent } from '../analytics/human';
import { statsRange, stepFigures, type StepStats } from './stepFigures';

const base: StepStats = {
  stepId: 's',
  type: 'DELAY',
  name: 'Wait a day',
  entered: 12,
  completed: 8,
  failed: 0,
  exited: 1,
  waitingNow: 3,
  mail: null,
};
const shown = (s: StepStats) => stepFigures(s).map((f) => `${f.value} ${f.label}`);

describe('workflow graph stats', () => {
  it('a trigger counts executions started; a step its runs, waiting now and ends', () => {
    expect(shown({ ...base, type: 'TRIGGER', entered: 1234 })).toEqual(['1,234 started']);
    expect(shown(base)).toEqual(['12 entered', '3 waiting now', '8 completed', '1 exited']);
    expect(shown({ ...base, failed: 2 })).toContain('2 failed');
  });

  it('a SEND_EMAIL step shows sent and the human rates over sent, the raw counts in the title', () => {
    const f = stepFigures({
      ...base,
      type: 'SEND_EMAIL',
      mail: { emails: 11, sent: 10, delivered: 9, opened: 7, clicked: 3, humanOpened: 4, humanClicked: 1, bounced: 1 },
    });
    expect(f.slice(4).map((x) => `${x.value} ${x.label}`)).toEqual(['10 sent', '40 % opened', '10 % clicked']);
    expect(f.find((x) => x.key === 'opens')!.title).toBe('4 opened by people; 7 with machine opens');
  });

  it('rates: one decimal at most, a dash when nothing was sent', () => {
    expect(percent(1, 8)).toBe('12.5 %');
    expect(percent(1, 3)).toBe('33.3 %');
    expect(percent(0, 0)).toBe('–');
  });

  it('the range ends at the next whole minute and spans the days asked', () => {
    const r = statsRange(7, Date.UTC(2026, 0, 10, 12, 0, 30));
    expect(r).toEqual({ from: '2026-01-03T12:01:00.000Z', to: '2026-01-10T12:01:00.000Z' });
  });
});
