import { describe, expect, it } from 'vitest';
import { MAX_VARIANTS as API_MAX, MIN_VARIANTS as API_MIN } from '../../../../src/campaigns/experiment.schema';
import { draftOf, experimentBody, MAX_VARIANTS, MIN_VARIANTS, nextVariant, sentBodies, splitOf } from './experiment';
import { experimentProblems } from './experimentChecks';
import { waitOf, waitWords } from './experimentWords';

describe("the composer's A/B settings", () => {
  it('splits an audience as the send does: holdout first, the test round-robin, the rest for the winner', () => {
    // The API's own test case: 200 contacts, 20 % test, 10 % holdout, 2 variants.
    expect(splitOf(200, 20, 10, 2)).toEqual({ holdout: 20, variants: [20, 20], rest: 140 });
    // Uneven: the first groups get one more; halves round up like Postgres' round().
    expect(splitOf(10, 25, 5, 3)).toEqual({ holdout: 1, variants: [1, 1, 1], rest: 6 });
    expect(splitOf(7, 50, 0, 2)).toEqual({ holdout: 0, variants: [2, 2], rest: 3 });
    // A pure split: everyone outside the holdout, no rest.
    expect(splitOf(11, 100, 10, 2)).toEqual({ holdout: 1, variants: [5, 5], rest: 0 });
    expect(splitOf(0, 20, 10, 2)).toEqual({ holdout: 0, variants: [0, 0], rest: 0 });
  });

  it('turns the form into the API body and back', () => {
    const d = draftOf();
    expect(d.enabled).toBe(false);
    expect(experimentBody(d)).toEqual({ variants: null, experiment: null });
    const on = {
      ...d,
      enabled: true,
      variants: [
        { ...d.variants[0], subject: 'Hi A' },
        { ...d.variants[1], from: ' b@x.test ', body: '<p>B</p>' },
      ],
      metric: 'event' as const,
      eventName: 'signup',
      wait: 2,
      waitUnit: 'hours' as const,
    };
    const body = experimentBody(on);
    expect(body).toEqual({
      variants: [
        { key: 'A', subject: 'Hi A' },
        { key: 'B', from: 'b@x.test', body: '<p>B</p>' },
      ],
      experiment: { testPercent: 20, holdoutPercent: 0, metric: 'event:signup', waitMinutes: 120 },
    });
    expect(draftOf(body)).toMatchObject({
      enabled: true,
      metric: 'event',
      eventName: 'signup',
      wait: 2,
      waitUnit: 'hours',
    });
    expect(waitOf(1440)).toEqual({ wait: 1, waitUnit: 'days' });
    expect(waitWords(90)).toBe('90 minutes');
    expect(waitWords(60)).toBe('1 hour');
  });

  it('refuses what the API would, by its field paths, and adds variants up to five', () => {
    const d = { ...draftOf(), enabled: true };
    expect(experimentProblems(d)).toEqual({});
    expect(Object.keys(experimentProblems({ ...d, testPercent: 60, holdoutPercent: 50 }))).toEqual([
      'experiment.testPercent',
    ]);
    expect(experimentProblems({ ...d, testPercent: 100, holdoutPercent: 50 })).toEqual({});
    expect(Object.keys(experimentProblems({ ...d, metric: 'event', wait: 10, waitUnit: 'minutes' }))).toEqual([
      'experiment.metric',
      'experiment.waitMinutes',
    ]);
    expect([MIN_VARIANTS, MAX_VARIANTS]).toEqual([API_MIN, API_MAX]);
    let vs = d.variants;
    for (let v = nextVariant(vs); v; v = nextVariant(vs)) vs = [...vs, v];
    expect(vs.map((v) => v.key)).toEqual(['A', 'B', 'C', 'D', 'E']);
    // A removed key is reused first.
    expect(nextVariant(vs.filter((v) => v.key !== 'B'))?.key).toBe('B');
  });

  it("the click map's bodies: the campaign's alone, or each variant's own and the one the others share", () => {
    const keys = (c: Parameters<typeof sentBodies>[0]) => sentBodies(c).map((b) => `${b.key}:${b.label}:${b.html}`);
    expect(keys({ body: '<p>x</p>', variants: null })).toEqual([':The campaign:<p>x</p>']);
    expect(keys({ body: '<p>x</p>', variants: [{ key: 'A' }, { key: 'B' }] })).toEqual([':The campaign:<p>x</p>']);
    expect(keys({ body: 'x', variants: [{ key: 'A' }, { key: 'B', body: 'y' }, { key: 'C' }] })).toEqual([
      ":Variant A, C (the campaign's body):x",
      'B:Variant B:y',
    ]);
    expect(
      keys({
        body: 'x',
        variants: [
          { key: 'A', body: 'a' },
          { key: 'B', body: 'b' },
        ],
      }),
    ).toEqual(['A:Variant A:a', 'B:Variant B:b']);
  });
});
