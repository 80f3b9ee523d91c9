import { describe, expect, it } from 'vitest';
import { DomainLimits, parseDomainConcurrency } from './domain-limits.js';
import { isTransportFailure } from './failures.js';
import { AdaptiveRate, isThrottling } from './rate.js';
import { routeOf, streamOf } from './route.js';
import { splitSettings, smtpUrlWithPassword, TransportSettingsError } from './settings.js';
import { instanceTransportName, parseFallbacks } from './keys.js';

describe('routing rules', () => {
  const mail = { type: 'TRANSACTIONAL', campaignId: null, fromEmail: 'a@Shop.test', toEmail: 'x@Gmail.com' };
  it('takes the first rule whose every field matches, else the instance transport', () => {
    const rules = [
      { match: { stream: 'marketing' as const }, transports: ['m'] },
      { match: { toDomain: 'gmail.com', fromDomain: 'shop.test' }, transports: ['g', 'default'] },
      { match: {}, transports: ['any'] },
    ];
    expect(routeOf(rules, mail)).toEqual(['g', 'default']);
    expect(routeOf(rules, { ...mail, campaignId: 'c' })).toEqual(['m']);
    expect(routeOf(rules, { ...mail, toEmail: 'x@other.test' })).toEqual(['any']);
    expect(routeOf([], mail)).toEqual(['default']);
    expect(streamOf({ type: 'MARKETING', campaignId: null })).toBe('marketing');
  });
});

describe('what a send error means', () => {
  it('fails over on connection faults, 421 and refused logins, never on a recipient or the message', () => {
    expect(isTransportFailure({ code: 'ECONNECTION', command: 'CONN' })).toBe(true);
    expect(isTransportFailure({ code: 'ETIMEDOUT' })).toBe(true);
    expect(isTransportFailure({ code: 'EAUTH', responseCode: 535, command: 'AUTH PLAIN' })).toBe(true);
    expect(isTransportFailure({ responseCode: 421, command: 'RCPT TO' })).toBe(true);
    expect(isTransportFailure({ responseCode: 451, command: 'MAIL FROM' })).toBe(true);
    expect(isTransportFailure({ code: 'EENVELOPE', responseCode: 550, command: 'RCPT TO' })).toBe(false);
    expect(isTransportFailure({ code: 'EENVELOPE', responseCode: 451, command: 'RCPT TO' })).toBe(false);
    expect(isTransportFailure({ code: 'EMESSAGE', responseCode: 552, command: 'DATA' })).toBe(false);
    expect(isTransportFailure({ transportFault: true })).toBe(true);
    expect(isTransportFailure(new Error('render failed'))).toBe(false);
  });
  it('knows throttling answers from deferrals', () => {
    expect(isThrottling({ responseCode: 451, response: '451 4.7.0 Too many messages, slow down' })).toBe(true);
    expect(isThrottling({ responseCode: 421, response: '421 4.7.0 Rate limit exceeded' })).toBe(true);
    expect(isThrottling({ responseCode: 451, response: '451 4.7.1 Greylisted, try again later' })).toBe(false);
    expect(isThrottling({ responseCode: 550, response: '550 too many recipients' })).toBe(false);
    expect(isThrottling({ throttled: true })).toBe(true);
  });
});

describe('adaptive rate (AIMD)', () => {
  it('halves on throttling at most once a second and climbs a tenth of its ceiling per clean minute', () => {
    let t = 0;
    const r = new AdaptiveRate(100, () => t);
    expect(r.current()).toBe(100);
    expect(r.throttled()).toBe(50);
    t += 500;
    expect(r.throttled()).toBe(50);
    t += 600;
    expect(r.throttled()).toBe(25);
    t += 59_000;
    expect(r.current()).toBe(25);
    t += 1_000;
    expect(r.current()).toBe(35);
    t += 10 * 60_000;
    expect(r.current()).toBe(100);
  });
  it('with no ceiling, halves what it measured in the last second', async () => {
    let t = 0;
    const r = new AdaptiveRate(undefined, () => t);
    for (let i = 0; i < 30; i++) await r.acquire();
    t = 1_000;
    await r.acquire();
    expect(r.throttled()).toBe(15);
  });
  it('spaces mails at the rate', async () => {
    const r = new AdaptiveRate(50);
    const start = Date.now();
    for (let i = 0; i < 6; i++) await r.acquire();
    expect(Date.now() - start).toBeGreaterThanOrEqual(90); // 5 gaps of 20 ms
  });
});

describe('per-domain concurrency', () => {
  it('holds the n+1th mail to a limited domain until one finishes, and leaves other domains alone', async () => {
    const limits = new DomainLimits(parseDomainConcurrency('gmail.com=2'));
    const a = await limits.acquire('t', 'gmail.com');
    await limits.acquire('t', 'gmail.com');
    let third = false;
    const waiting = limits.acquire('t', 'gmail.com').then((rel) => ((third = true), rel));
    await limits.acquire('t', 'example.org');
    await limits.acquire('other', 'gmail.com');
    await new Promise((r) => setImmediate(r));
    expect(third).toBe(false);
    a();
    a(); // a second release of the same slot is ignored
    await waiting;
    expect(third).toBe(true);
  });
  it('parses DOMAIN_CONCURRENCY over the defaults and refuses what is not domain=n', () => {
    expect(parseDomainConcurrency('gmail.com=30,Example.org=2')).toMatchObject({
      'gmail.com': 30,
      'example.org': 2,
      'aol.com': 5,
    });
    expect(() => parseDomainConcurrency('gmail.com')).toThrow(/domain=n/);
    expect(() => parseDomainConcurrency('gmail.com=0')).toThrow(/n ≥ 1/);
  });
});

describe('transport settings', () => {
  it('keeps the password out of the stored URL', () => {
    expect(splitSettings({ kind: 'smtp', url: 'smtp://me:p%40ss@relay.test:587?pool=3' })).toEqual({
      settings: { url: 'smtp://me@relay.test:587?pool=3' },
      secret: 'p@ss',
    });
    expect(smtpUrlWithPassword('smtp://me@relay.test:587', 'p@ss')).toBe('smtp://me:p%40ss@relay.test:587');
    expect(() => splitSettings({ kind: 'smtp', url: 'http://relay.test' })).toThrow(TransportSettingsError);
    expect(() => splitSettings({ kind: 'smtp', url: 'smtp://relay.test?pool=0' })).toThrow(/pool/);
    expect(() => splitSettings({ kind: 'ses', region: 'Europe' })).toThrow(/region/);
    expect(splitSettings({ kind: 'ses', region: 'eu-west-1', accessKeyId: 'AK', secretAccessKey: 'S' })).toEqual({
      settings: { region: 'eu-west-1', accessKeyId: 'AK' },
      secret: 'S',
    });
  });
});

describe('FALLBACK_TRANSPORTS', () => {
  it('reads SMTP URLs and ses://region[/set] in order, and refuses anything else', () => {
    expect(parseFallbacks(' smtps://u:p@backup.test:465  ses://eu-west-1/pigeon ')).toEqual([
      { key: 'fallback-1', target: { kind: 'smtp', url: 'smtps://u:p@backup.test:465' } },
      { key: 'fallback-2', target: { kind: 'ses', region: 'eu-west-1', configurationSet: 'pigeon' } },
    ]);
    expect(parseFallbacks(undefined)).toEqual([]);
    expect(() => parseFallbacks('http://x.test')).toThrow(/smtp:\/\/, smtps:\/\/ or ses/);
    expect(() => parseFallbacks('ses://moon-1')).toThrow(/fallback 1/);
    expect(instanceTransportName('fallback-2')).toBe('Instance fallback 2');
    expect(instanceTransportName('default')).toBe('Instance default');
    expect(instanceTransportName('4f1c')).toBeNull();
  });
});
