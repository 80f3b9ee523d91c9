import { describe, expect, it } from 'vitest';
import { triggerBody, triggerSentence, triggerSummary } from './triggerDraft';

describe('trigger step drafts', () => {
  const base = { triggerType: 'EVENT' as const, eventName: '', segmentId: '', cron: '' };

  it('asks for what each kind needs and sends only its fields', () => {
    expect(triggerBody(base).errors.eventName).toBeTruthy();
    expect(triggerBody({ ...base, eventName: ' signup ', segmentId: 'x' }).body).toEqual({
      triggerType: 'EVENT',
      triggerConfig: { eventName: 'signup' },
    });
    expect(triggerBody({ ...base, triggerType: 'SEGMENT_ENTERED' }).errors.segmentId).toBeTruthy();
    expect(triggerBody({ ...base, triggerType: 'SEGMENT_EXITED', segmentId: 's1' }).body.triggerConfig).toEqual({
      segmentId: 's1',
    });
    expect(triggerBody({ ...base, triggerType: 'SCHEDULE' }).errors.cron).toBeTruthy();
    expect(triggerBody({ ...base, triggerType: 'SCHEDULE', cron: ' 0 9 * * 1 ' }).body.triggerConfig).toEqual({
      cron: '0 9 * * 1',
    });
    expect(triggerBody({ ...base, triggerType: 'MANUAL', eventName: 'x' })).toEqual({
      errors: {},
      body: { triggerType: 'MANUAL', triggerConfig: {} },
    });
  });

  it('says what starts a workflow, the schedule in the server’s words', () => {
    const schedule = { description: 'Every Monday at 09:00 (Europe/Paris)', timeZone: 'Europe/Paris', nextRunAt: null };
    expect(triggerSummary({ triggerType: 'SCHEDULE', triggerConfig: { cron: '0 9 * * 1' }, schedule })).toBe(
      'Every Monday at 09:00 (Europe/Paris)',
    );
    expect(triggerSummary({ triggerType: 'SEGMENT_EXITED', triggerConfig: { segmentId: 's' } })).toBe(
      'When a contact leaves the segment',
    );
    expect(triggerSentence({ triggerType: 'EVENT', triggerConfig: { eventName: 'signup' } })).toBe(
      'Starts when "signup" is tracked for a contact.',
    );
  });
});
