import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../../test/factories.js';
import { createHarness, type Harness } from '../../../test/harness.js';
import { createTemplate, createVerifiedDomain, eventually, type TestDomain } from '../../../test/sending-fixtures.js';
import { startSmtpSink, type SmtpSink } from '../../../test/smtp-sink.js';
import { decodeEntities } from '../render/render.js';

const NEWSLETTER = new URL('../../../test/fixtures/newsletter.html', import.meta.url);

// Open and click tracking, and the subscription pages (unsubscribe, subscribe, manage).
describe('open/click tracking and subscription links', () => {
  let h: Harness;
  let sink: SmtpSink;
  let p: TestProject;
  let d: TestDomain;
  let newsletter: string;

  beforeAll(async () => {
    sink = await startSmtpSink();
    h = await createHarness({ env: { SMTP_URL: sink.url + '?pool=2' }, worker: true });
    p = await createProject(h);
    d = await createVerifiedDomain(h, p.id);
    newsletter = await readFile(NEWSLETTER, 'utf8');
  });
  afterAll(async () => {
    await h?.close();
    await sink?.close();
  });

  const hrefs = (html: string) =>
    [...html.matchAll(/<a\b(?:[^>"']|"[^"]*"|'[^']*')*>/gi)]
      .map((m) => /\shref\s*=\s*("([^"]*)"|'([^']*)'|([^\s"'>]+))/i.exec(m[0]))
      .filter(Boolean)
      .map((m) => decodeEntities(m![2] ?? m![3] ?? m![4]));

  async function sendTo(to: string, body: Record<string, unknown>, key = p.secretKey) {
    const res = await h.request('POST', '/v1/send', { key, body: { to, subscribed: true, ...body } });
    expect(res.status).toBe(200);
    const id = res.body.data.emails[0].email as string;
    const mail = await eventually(async () => sink.to(to)[0], 15_000, `mail to ${to}`);
    return { id, mail, contactId: res.body.data.emails[0].contact.id as string };
  }

  it('rewrites every http(s) link of a real newsletter, adds the pixel, and redirects clicks to the original', async () => {
    const tpl = await createTemplate(h, p.id, {
      subject: 'Weekly {{firstName}}',
      body: newsletter,
      from: `news@${d.domain}`,
      type: 'MARKETING',
    });
    const { id, mail, contactId } = await sendTo('sailor@example.test', {
      template: tpl,
      data: { firstName: 'Sam', company: 'A & B' },
    });
    const html = String(mail.parsed.html);

    const original = hrefs(newsletter).filter((u) => /^https?:/.test(u));
    expect(original).toEqual([
      'https://harbour.example.com/?utm_source=newsletter&utm_medium=email&utm_campaign=weekly-42',
      'https://harbour.example.com/stories/lighthouse?ref=hero&id=42',
      'https://harbour.example.com/regatta/tickets',
      'https://harbour.example.com/ferry#timetable',
      'https://harbour.example.com/ferry?from=north&to=south',
      'https://tides.example.org/spring?lat=50.1&lon=-5.5',
      'https://tides.example.org/spring',
    ]);
    const sent = hrefs(html);
    const tracked = sent.filter((u) => u.startsWith(`${h.url}/t/c/`));
    expect(tracked).toHaveLength(original.length);
    // Links that are not http(s), and the service's own subscription links, stay as written.
    expect(sent).toContain('mailto:editor@harbour.example.com?subject=Weekly%20Harbour');
    expect(sent).toContain('tel:+441234567890');
    expect(sent).toContain('#tides');
    expect(
      sent.filter((u) => u.startsWith(`${h.url}/preferences/`) || u.startsWith(`${h.url}/unsubscribe/`)),
    ).toHaveLength(2);
    // Variables are filled in (escaped), the layout is untouched: conditional comments, the VML button.
    expect(html).toContain('Hello Sam,');
    expect(html).toContain('A &amp; B readers');
    expect(html.match(/<!--\[if mso/g)?.length).toBe(newsletter.match(/<!--\[if mso/g)?.length);
    expect(html).toContain('href="https://harbour.example.com/regatta/tickets" style="height:40px');
    // The footer is not added twice: the newsletter links its own unsubscribe URL.
    expect(html).not.toContain('You received this email because');
    // One pixel, just before </body>.
    const pixel = /<img src="([^"]+\/t\/o\/[^"]+)" width="1" height="1"[^>]*>\s*<\/body>/.exec(html);
    expect(pixel).not.toBeNull();
    // The text part keeps the original links.
    expect(mail.parsed.text).toContain('https://tides.example.org/spring');
    expect(mail.parsed.text).not.toContain('/t/c/');

    await eventually(
      async () => (await h.sql('select status from emails where id = $1', [id]))[0].status === 'DELIVERED',
      5000,
      'DELIVERED',
    );
    for (const [i, link] of tracked.entries()) {
      const res = await h.request('GET', link.slice(h.url.length));
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe(original[i]);
    }
    const clicks = await h.sql(
      `select data->>'link' as link, contact_id from events where email_id = $1 and name = 'email.click' order by created_at, id`,
      [id],
    );
    expect(clicks.map((c) => c.link)).toEqual(original);
    expect(clicks.every((c) => c.contact_id === contactId)).toBe(true);
    expect(
      (await h.sql('select status, clicked_at is not null as clicked from emails where id = $1', [id]))[0],
    ).toEqual({ status: 'CLICKED', clicked: true });

    // The pixel answers a GIF; status never goes down; the click already counted as the open.
    const img = await h.request('GET', pixel![1].slice(h.url.length));
    expect(img.status).toBe(200);
    expect(img.headers.get('content-type')).toBe('image/gif');
    expect((await h.sql('select status from emails where id = $1', [id]))[0].status).toBe('CLICKED');
    expect(await h.sql(`select 1 from events where email_id = $1 and name = 'email.open'`, [id])).toHaveLength(1);
  });

  it('records the first open and moves DELIVERED to OPENED', async () => {
    const { id, mail } = await sendTo('opener@example.test', {
      from: `hi@${d.domain}`,
      subject: 'Open me',
      body: '<p>Hi</p>',
    });
    await eventually(
      async () => (await h.sql('select status from emails where id = $1', [id]))[0].status === 'DELIVERED',
      5000,
      'DELIVERED',
    );
    const src = /<img src="([^"]+\/t\/o\/[^"]+)"/.exec(String(mail.parsed.html))![1];
    for (let i = 0; i < 2; i++) expect((await h.request('GET', src.slice(h.url.length))).status).toBe(200);
    expect((await h.sql('select status from emails where id = $1', [id]))[0].status).toBe('OPENED');
    const opens = await h.sql(`select data from events where email_id = $1 and name = 'email.open'`, [id]);
    expect(opens).toHaveLength(1);
    expect(opens[0].data).toMatchObject({ emailId: id, subject: 'Open me', sourceType: 'TRANSACTIONAL' });
  });

  it('refuses forged, tampered and cross-purpose tokens with 404', async () => {
    const { mail } = await sendTo('forger@example.test', {
      from: `hi@${d.domain}`,
      subject: 'x',
      body: '<p><a href="https://example.com/a">a</a></p>',
    });
    const html = String(mail.parsed.html);
    const click = /href="[^"]*(\/t\/c\/[^"]+)"/.exec(html)![1];
    const open = /src="[^"]*(\/t\/o\/[^"]+)"/.exec(html)![1];
    const flip = (t: string) => t.slice(0, -1) + (t.endsWith('A') ? 'B' : 'A');
    // The payload changed to another URL under the same signature.
    const [payload, sig] = click.slice('/t/c/'.length).split('.');
    const evil = Buffer.concat([
      Buffer.from(payload, 'base64url').subarray(0, 16),
      Buffer.from('https://evil.example/'),
    ]).toString('base64url');
    for (const path of [
      flip(click),
      flip(open),
      `/t/c/${evil}.${sig}`,
      `/t/c/${open.slice('/t/o/'.length)}`,
      '/t/o/abc',
      '/t/c/',
      '/unsubscribe/abc.def',
      '/manage/x',
    ]) {
      const res = await h.request('GET', path);
      expect(res.status, path).toBe(404);
      expect(res.body.error.code).toBe('RESOURCE_NOT_FOUND');
    }
  });

  it('redirects a link longer than the router parameter limit', async () => {
    const long = `https://example.com/path?${'q'.repeat(900)}=1&x=2`;
    const { mail } = await sendTo('long@example.test', {
      from: `hi@${d.domain}`,
      subject: 'x',
      body: `<a href="${long.replace('&', '&amp;')}">go</a>`,
    });
    const click = /href="[^"]*(\/t\/c\/[^"]+)"/.exec(String(mail.parsed.html))![1];
    const res = await h.request('GET', click);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(long);
  });

  it('follows the project tracking mode; HEADLESS mail is never rewritten and has no footer', async () => {
    const body = '<html><body><a href="https://example.com/x">x</a></body></html>';
    const q = await createProject(h);
    const qd = await createVerifiedDomain(h, q.id);
    const tracked = (html: string) => [html.includes('/t/c/'), html.includes('/t/o/')];

    await h.sql(`update projects set tracking = 'DISABLED' where id = $1`, [q.id]);
    const off = await sendTo('m1@example.test', { from: `a@${qd.domain}`, subject: 's', body }, q.secretKey);
    expect(tracked(String(off.mail.parsed.html))).toEqual([false, false]);

    await h.sql(`update projects set tracking = 'MARKETING_ONLY' where id = $1`, [q.id]);
    const tx = await sendTo('m2@example.test', { from: `a@${qd.domain}`, subject: 's', body }, q.secretKey);
    expect(tracked(String(tx.mail.parsed.html))).toEqual([false, false]);
    const mkt = await createTemplate(h, q.id, { subject: 's', body, from: `a@${qd.domain}`, type: 'MARKETING' });
    const m = await sendTo('m3@example.test', { template: mkt }, q.secretKey);
    expect(tracked(String(m.mail.parsed.html))).toEqual([true, true]);
    // No unsubscribe link in the body: the footer adds one.
    expect(String(m.mail.parsed.html)).toMatch(
      /You received this email because[\s\S]*\/unsubscribe\/[^"]+"[^>]*>Unsubscribe/,
    );

    await h.sql(`update projects set tracking = 'ENABLED' where id = $1`, [q.id]);
    const headless = await createTemplate(h, q.id, { subject: 's', body, from: `a@${qd.domain}`, type: 'HEADLESS' });
    const hl = await sendTo('m4@example.test', { template: headless }, q.secretKey);
    expect(String(hl.mail.parsed.html).trim()).toBe(body);
  });

  it('unsubscribe page, one-click POST and resubscribe through the manage page', async () => {
    const { mail, contactId } = await sendTo('pages@example.test', {
      from: `hi@${d.domain}`,
      subject: 's',
      body: '<p><a href="{{unsubscribeUrl}}">u</a> <a href="{{manageUrl}}">m</a> <a href="{{subscribeUrl}}">s</a></p>',
    });
    const [unsub, manage, sub] = hrefs(String(mail.parsed.html)).map((u) => u.slice(h.url.length));
    expect(unsub).toMatch(/^\/unsubscribe\//);
    const page = await h.request('GET', unsub);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.text).toContain('pages@example.test');
    expect(page.text).toContain(`<form method="post" action="${h.url}${unsub}">`);
    // Pigeon's icon, inlined, and allowed by the page's locked-down policy.
    expect(page.text).toContain('<link rel="icon" type="image/svg+xml" href="data:image/svg+xml,');
    expect(page.headers.get('content-security-policy')).toContain('img-src data:');
    expect((await h.sql('select subscribed from contacts where id = $1', [contactId]))[0].subscribed).toBe(true);

    const post = await h.request('POST', unsub, {
      raw: true,
      body: 'List-Unsubscribe=One-Click',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(post.status).toBe(200);
    expect((await h.sql('select subscribed from contacts where id = $1', [contactId]))[0].subscribed).toBe(false);
    // Again: already unsubscribed, no second event. A POST without a body works too.
    const again = await h.request('POST', unsub);
    expect(again.status).toBe(200);
    expect(again.text).toContain('<h1>You are already unsubscribed</h1>');
    // A second visit of the link says so, names the project, and offers the way back instead of asking again.
    const revisit = await h.request('GET', unsub);
    expect(revisit.text).toContain('<h1>You are already unsubscribed</h1>');
    expect(revisit.text).toContain(`<p class="brand">${p.name}</p>`);
    expect(revisit.text).toContain('<button type="submit">Subscribe again</button>');
    expect(revisit.text).not.toContain('<button type="submit">Unsubscribe</button>');

    expect(manage).toMatch(/^\/preferences\//);
    const mp = await h.request('GET', manage);
    expect(mp.text).toContain('You are unsubscribed');
    // The address of mail sent before the preference centre serves the same page.
    const legacy = await h.request('GET', manage.replace('/preferences/', '/manage/'));
    expect(legacy.text).toContain('You are unsubscribed');
    const re = await h.request('POST', manage.replace('/preferences/', '/manage/'), {
      raw: true,
      body: 'subscribed=true',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(re.status).toBe(200);
    expect(re.text).toContain('You are subscribed again.');
    expect((await h.sql('select subscribed from contacts where id = $1', [contactId]))[0].subscribed).toBe(true);
    const subPage = await h.request('GET', sub);
    expect(subPage.status).toBe(200);
    expect(subPage.text).toContain('<h1>You are already subscribed</h1>');
    const names = (
      await h.sql(`select name from events where contact_id = $1 and name like 'contact.%' order by created_at, id`, [
        contactId,
      ])
    ).map((r) => r.name);
    expect(names).toEqual(['contact.unsubscribed', 'contact.subscribed']);
  });
});
