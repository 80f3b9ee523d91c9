/**
 * The data machine.ts classifies tracking hits with: Apple's networks and the user agents of security
 * scanners and link-preview agents. Data only; the rules that use it are machine.ts's.
 */

/**
 * Networks of Apple's own (AS714), from which the Mail Privacy Protection proxy fetches remote
 * content. Sources: the regional registries' allocations to Apple Inc. (ARIN NET-17-0-0-0-1
 * `17.0.0.0/8` and `2620:149::/32`, RIPE `2a01:b740::/32`, APNIC `2403:300::/32`).
 *
 * Not included: the iCloud Private Relay egress list Apple publishes
 * (https://mask-api.icloud.com/egress-ip-ranges.csv, ~290,000 CIDRs of Akamai, Cloudflare and Fastly,
 * rotating daily). MPP shares that relay, but so does every Safari user with Private Relay on: an
 * address from it alone does not tell a proxy prefetch from a person. MPP fetches through the relay
 * carry MPP's request signature ({@link APPLE_MPP_USER_AGENT}), which machine.ts checks first.
 *
 * To refresh: `whois -h whois.radb.net -- '-i origin AS714'` lists the prefixes Apple announces;
 * add an aggregate here only when the registry shows it allocated to Apple (not a relay partner),
 * and add a sample address of it to machine.test.ts.
 */
export const APPLE_NETWORKS: ReadonlyArray<readonly [address: string, prefix: number, type: 'ipv4' | 'ipv6']> = [
  ['17.0.0.0', 8, 'ipv4'],
  ['2620:149::', 32, 'ipv6'],
  ['2a01:b740::', 32, 'ipv6'],
  ['2403:300::', 32, 'ipv6'],
];

/**
 * The user agent of every Mail Privacy Protection fetch since 20 September 2021: exactly
 * `Mozilla/5.0`, nothing after it (ua-parser/uap-core issue 509; SocketLabs' and Word to the Wise's
 * write-ups of MPP). No browser or mail client sends it bare.
 */
export const APPLE_MPP_USER_AGENT = 'Mozilla/5.0';

/**
 * User agents of machines that fetch links or images of mail they deliver, scan or preview, by who
 * runs them. A request whose user agent matches one is machine activity. Patterns are tested
 * case-insensitively against the whole header. Keep entries specific (a product token, not a word a
 * browser or device name could contain) and add a sample of each new one to machine.test.ts.
 *
 * Image proxies that fetch when the reader opens the mail (Gmail's GoogleImageProxy, Yahoo's
 * YahooMailProxy, Outlook.com's) are deliberately absent: their fetch is a person's open.
 */
export const MACHINE_AGENTS: ReadonlyArray<{ name: string; pattern: RegExp }> = [
  // Microsoft: Safe Links / Defender detonation and Outlook's link previews (BingPreview), Office's
  // protocol discovery before it opens a link, Teams and Skype previews.
  { name: 'Microsoft BingPreview', pattern: /BingPreview/i },
  // (Not `ms-office`: Outlook for Windows loads a mail's images as `compatible; ms-office` when the
  // reader opens it, a person's open.)
  { name: 'Microsoft Office discovery', pattern: /Microsoft Office Existence Discovery/i },
  { name: 'Skype / Teams preview', pattern: /SkypeUriPreview|MicrosoftPreview|Teams(?:Bot|Preview)/i },
  // Mail security gateways that rewrite and pre-click links.
  { name: 'Proofpoint', pattern: /Proofpoint/i },
  { name: 'Mimecast', pattern: /Mimecast/i },
  { name: 'Barracuda', pattern: /Barracuda/i },
  { name: 'Cisco IronPort', pattern: /IronPort/i },
  { name: 'Trend Micro', pattern: /Trend ?Micro/i },
  { name: 'Forcepoint', pattern: /Forcepoint|Websense/i },
  { name: 'Symantec / Broadcom', pattern: /Symantec|MessageLabs/i },
  // Link previews of chat and social apps (iMessage's preview sends facebookexternalhit too).
  {
    name: 'Google',
    pattern: /Google-(?:Safety|PageRenderer|InspectionTool|Read-Aloud)|Google Web Preview|googleweblight/i,
  },
  { name: 'Slack', pattern: /Slack(?:bot|-ImgProxy)/i },
  { name: 'WhatsApp', pattern: /WhatsApp\//i },
  { name: 'Discord', pattern: /Discordbot/i },
  { name: 'Telegram', pattern: /TelegramBot/i },
  { name: 'LinkedIn', pattern: /LinkedInBot/i },
  { name: 'Facebook', pattern: /facebookexternalhit|Facebot|meta-externalagent/i },
  { name: 'Twitter / X', pattern: /Twitterbot/i },
  // Headless browsers and HTTP libraries: what sandboxes and scanners are built from.
  { name: 'Headless browser', pattern: /HeadlessChrome|PhantomJS|Puppeteer|Playwright/i },
  {
    name: 'HTTP library',
    pattern:
      /^(?:curl|Wget|python-requests|python-urllib|Python\/|aiohttp|Go-http-client|Java\/|okhttp|Apache-HttpClient|axios|node-fetch|undici|libwww-perl|Ruby|HTTPie)\b/i,
  },
  // Crawlers in general: a product token ending in "bot", "crawler" or "spider" (not the Cubot phone).
  { name: 'Crawler', pattern: /(?<!cu)bot\b|crawler|spider|\bscanner\b|preview\b/i },
];
