import { describe, expect, it } from 'vitest';
import {
  classifyRequest,
  classifySweep,
  isAppleAddress,
  mayBeSweep,
  sweepWindowEnd,
  SWEEP_SECONDS,
} from './machine.js';

const CHROME_WIN =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const SAFARI_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
const APPLE_MAIL_MAC = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)';

// Request samples as tracking endpoints see them: [what, kind, method, user agent, address, expected reason or null].
const SAMPLES: Array<[string, 'open' | 'click', string, string | undefined, string, string | null]> = [
  // Apple Mail Privacy Protection: the bare signature through the Private Relay egress, and Apple's own network.
  ['MPP prefetch via relay egress', 'open', 'GET', 'Mozilla/5.0', '104.28.86.33', 'apple-mpp'],
  ['MPP prefetch, IPv6 relay egress', 'open', 'GET', 'Mozilla/5.0', '2a02:26f7:b3c8:4000::1', 'apple-mpp'],
  ['MPP prefetch from Apple (AS714)', 'open', 'GET', APPLE_MAIL_MAC, '17.58.101.38', 'apple-mpp'],
  ['MPP prefetch, IPv4-mapped', 'open', 'GET', APPLE_MAIL_MAC, '::ffff:17.58.101.38', 'apple-mpp'],
  ['MPP prefetch, Apple IPv6', 'open', 'GET', APPLE_MAIL_MAC, '2620:149:a44:1200::1', 'apple-mpp'],
  ['bare signature on a link', 'click', 'GET', 'Mozilla/5.0', '198.51.100.7', 'apple-mpp'],
  ['Apple Mail without MPP (home address)', 'open', 'GET', APPLE_MAIL_MAC, '81.2.69.142', null],
  ['person at Apple clicking in Safari', 'click', 'GET', SAFARI_IPHONE, '17.58.101.38', null],
  // Image proxies that fetch when the reader opens the mail: people.
  [
    'Gmail image proxy',
    'open',
    'GET',
    'Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)',
    '66.249.84.193',
    null,
  ],
  [
    'Yahoo Mail proxy',
    'open',
    'GET',
    'YahooMailProxy; https://help.yahoo.com/kb/yahoo-mail-proxy-SLN28749.html',
    '98.137.27.103',
    null,
  ],
  [
    'Outlook for Windows loading images',
    'open',
    'GET',
    'Mozilla/4.0 (compatible; ms-office; MSOffice 16)',
    '81.2.69.142',
    null,
  ],
  // Browsers.
  ['Chrome on Windows', 'click', 'GET', CHROME_WIN, '203.0.113.9', null],
  ['Safari on iPhone', 'click', 'GET', SAFARI_IPHONE, '2001:db8::7', null],
  [
    'Firefox on Linux',
    'click',
    'GET',
    'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0',
    '203.0.113.10',
    null,
  ],
  [
    'Chrome on a Cubot phone (not a bot)',
    'click',
    'GET',
    'Mozilla/5.0 (Linux; Android 9; CUBOT P30) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/96.0.4664.45 Mobile Safari/537.36',
    '203.0.113.11',
    null,
  ],
  // Security scanners and link previews.
  [
    'Outlook Safe Links / BingPreview',
    'click',
    'GET',
    'Mozilla/5.0 (Windows NT 10.0; WOW64) AppleWebKit/537.36 (KHTML, like Gecko) BingPreview/1.0b',
    '40.77.167.21',
    'scanner',
  ],
  ['Office protocol discovery', 'click', 'GET', 'Microsoft Office Existence Discovery', '52.109.8.19', 'scanner'],
  [
    'Teams / Skype preview',
    'click',
    'GET',
    'Mozilla/5.0 (Windows NT 6.1; WOW64) SkypeUriPreview Preview/0.5 skype-url-preview@microsoft.com',
    '52.114.14.70',
    'scanner',
  ],
  ['Slack unfurl', 'click', 'GET', 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)', '3.89.1.1', 'scanner'],
  ['WhatsApp preview', 'click', 'GET', 'WhatsApp/2.23.20.0 A', '157.240.1.1', 'scanner'],
  [
    'Discord',
    'click',
    'GET',
    'Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)',
    '35.1.1.1',
    'scanner',
  ],
  ['Telegram', 'click', 'GET', 'TelegramBot (like TwitterBot)', '149.154.161.1', 'scanner'],
  [
    'LinkedIn',
    'click',
    'GET',
    'LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)',
    '108.174.2.1',
    'scanner',
  ],
  [
    'Facebook / iMessage preview',
    'click',
    'GET',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_11_1) AppleWebKit/601.2.4 (KHTML, like Gecko) Version/9.0.1 Safari/601.2.4 facebookexternalhit/1.1 Facebot Twitterbot/1.0',
    '81.2.69.142',
    'scanner',
  ],
  [
    'Googlebot',
    'click',
    'GET',
    'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    '66.249.66.1',
    'scanner',
  ],
  ['Proofpoint URL Defense', 'click', 'GET', 'Proofpoint URL Defense', '148.163.1.1', 'scanner'],
  ['Mimecast URL protect', 'click', 'GET', 'Mimecast-URL-Protect/1.0', '205.139.110.1', 'scanner'],
  ['Barracuda gateway', 'click', 'GET', 'Barracuda Sentinel (EE)', '64.235.144.1', 'scanner'],
  [
    'headless sandbox',
    'click',
    'GET',
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.6099.109 Safari/537.36',
    '34.1.1.1',
    'scanner',
  ],
  ['python scanner', 'click', 'GET', 'python-requests/2.31.0', '34.1.1.2', 'scanner'],
  ['Go scanner', 'open', 'GET', 'Go-http-client/1.1', '34.1.1.3', 'scanner'],
  ['curl', 'click', 'GET', 'curl/8.4.0', '34.1.1.4', 'scanner'],
  // HEAD and no user agent at all.
  ['HEAD from a browser UA', 'click', 'HEAD', CHROME_WIN, '203.0.113.9', 'head'],
  ['HEAD on the pixel', 'open', 'head', CHROME_WIN, '203.0.113.9', 'head'],
  ['no user agent', 'click', 'GET', undefined, '203.0.113.9', 'no-agent'],
  ['blank user agent', 'open', 'GET', '  ', '203.0.113.9', 'no-agent'],
];

describe('machine activity: request samples', () => {
  it.each(SAMPLES)('%s', (_what, kind, method, userAgent, ip, reason) => {
    expect(classifyRequest({ kind, method, userAgent, ip })).toEqual({ machine: reason !== null, reason });
  });

  it('matches addresses of Apple networks only, and nothing that is not an address', () => {
    expect(isAppleAddress('17.0.0.1')).toBe(true);
    expect(isAppleAddress('18.0.0.1')).toBe(false);
    expect(isAppleAddress('2a01:b740::9')).toBe(true);
    expect(isAppleAddress('not-an-ip')).toBe(false);
    expect(isAppleAddress('')).toBe(false);
  });
});

describe('machine activity: every link clicked at delivery', () => {
  const delivered = new Date('2030-01-01T10:00:00Z');
  const end = sweepWindowEnd(new Date('2030-01-01T09:59:58Z'), delivered)!;
  const at = (s: number) => new Date(delivered.getTime() + s * 1000);

  it('measures the window from delivery, else from sending', () => {
    expect(end.getTime() - delivered.getTime()).toBe(SWEEP_SECONDS * 1000);
    expect(sweepWindowEnd(delivered, null)).toEqual(end);
    expect(sweepWindowEnd(null, null)).toBeNull();
  });

  it('is a sweep when every distinct link is clicked in the window', () => {
    const all = new Set(['https://a.test', 'https://b.test', 'https://c.test']);
    expect(classifySweep({ at: at(3), windowEnd: end, links: 3, clicked: all })).toEqual({
      machine: true,
      reason: 'link-sweep',
    });
    // One link short, or the last click after the window, or a one-link mail: a person could.
    expect(classifySweep({ at: at(3), windowEnd: end, links: 4, clicked: all }).machine).toBe(false);
    expect(classifySweep({ at: at(SWEEP_SECONDS + 1), windowEnd: end, links: 3, clicked: all }).machine).toBe(false);
    expect(classifySweep({ at: at(1), windowEnd: end, links: 1, clicked: new Set(['https://a.test']) }).machine).toBe(
      false,
    );
    // Tokens made before links were counted carry no count: never a sweep.
    expect(classifySweep({ at: at(1), windowEnd: end, links: null, clicked: all }).machine).toBe(false);
  });

  it('only reads the history of clicks that could complete a sweep', () => {
    expect(mayBeSweep({ at: at(SWEEP_SECONDS), windowEnd: end, links: 2 })).toBe(true);
    expect(mayBeSweep({ at: at(SWEEP_SECONDS + 0.001), windowEnd: end, links: 2 })).toBe(false);
    expect(mayBeSweep({ at: at(1), windowEnd: null, links: 2 })).toBe(false);
  });
});
