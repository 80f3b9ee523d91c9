import { describe, expect, it } from 'vitest';
import { interpolate, renderMessage, renderSubject, rewriteLinks } from './render.js';
import { clickToken, contactToken, openToken, readClickToken, readContactToken, readOpenToken } from './tokens.js';

// Pure rendering rules (escaping, subjects, link rewriting, tracking) and token properties.
describe('render', () => {
  const vars = { name: 'Tom & <Jerry>', n: 3, ok: false, nested: { city: 'Oslo' }, 'dotted.key': 'dk', empty: '' };

  it('interpolates, escapes in bodies, inserts raw with triple braces, and takes fallbacks', () => {
    expect(interpolate('Hi {{name}}', vars, true)).toBe('Hi Tom &amp; &lt;Jerry&gt;');
    expect(interpolate('Hi {{{name}}}', vars, true)).toBe('Hi Tom & <Jerry>');
    expect(interpolate('{{ n }}/{{ok}}/{{nested.city}}/{{dotted.key}}', vars, true)).toBe('3/false/Oslo/dk');
    expect(
      interpolate(
        `{{missing ?? 'friend'}}|{{missing ?? "pal"}}|{{missing ?? buddy}}|{{missing}}|{{name ?? 'x'}}`,
        vars,
        true,
      ),
    ).toBe('friend|pal|buddy||Tom &amp; &lt;Jerry&gt;');
    expect(interpolate('{{empty ?? "fallback"}}', vars, true)).toBe('');
    expect(interpolate('{{nested}}', vars, false)).toBe('{"city":"Oslo"}');
  });

  it('never escapes subjects and strips CR/LF', () => {
    expect(renderSubject('Hi {{name}}', vars)).toBe('Hi Tom & <Jerry>');
    expect(renderSubject('Hi {{v}}', { v: 'a\r\nBcc: x@example.test' })).toBe('Hi a Bcc: x@example.test');
  });

  it('rewrites only http(s) hrefs of <a> tags, whatever their quoting', () => {
    const html =
      `<a href="https://a.test/?x=1&amp;y=2">1</a><a class='b' href='http://b.test'>2</a><a href=https://c.test/p>3</a>` +
      `<a title="x > y" href="https://d.test">4</a><a href="mailto:m@x.test">5</a><a name="top">6</a><link href="https://css.test/a.css">` +
      `<area href="https://area.test"><A\nHREF = "https://e.test" >7</A>`;
    const seen: string[] = [];
    const out = rewriteLinks(html, (u) => (seen.push(u), `https://t.test/${seen.length}?a=1&b=2`));
    expect(seen).toEqual([
      'https://a.test/?x=1&y=2',
      'http://b.test',
      'https://c.test/p',
      'https://d.test',
      'https://e.test',
    ]);
    expect(out).toBe(
      `<a href="https://t.test/1?a=1&amp;b=2">1</a><a class='b' href="https://t.test/2?a=1&amp;b=2">2</a><a href="https://t.test/3?a=1&amp;b=2">3</a>` +
        `<a title="x > y" href="https://t.test/4?a=1&amp;b=2">4</a><a href="mailto:m@x.test">5</a><a name="top">6</a><link href="https://css.test/a.css">` +
        `<area href="https://area.test"><A\nHREF = "https://t.test/5?a=1&amp;b=2" >7</A>`,
    );
  });

  it('renders HEADLESS mail exactly, and tracks per mode', () => {
    const base = {
      emailId: '0190aaaa-0000-7000-8000-000000000001',
      subject: 's',
      body: '<a href="https://x.test">x</a>',
      contactData: {},
      variables: {},
      contact: { id: '0190aaaa-0000-7000-8000-000000000002', email: 'c@example.test' },
      publicUrl: 'https://p.test',
      secret: 's'.repeat(40),
    };
    expect(renderMessage({ ...base, type: 'HEADLESS', tracking: 'ENABLED' }).html).toBe(base.body);
    expect(renderMessage({ ...base, type: 'TRANSACTIONAL', tracking: 'DISABLED' }).html).toBe(base.body);
    expect(renderMessage({ ...base, type: 'TRANSACTIONAL', tracking: 'MARKETING_ONLY' }).html).toBe(base.body);
    const m = renderMessage({ ...base, type: 'MARKETING', tracking: 'MARKETING_ONLY' }).html;
    expect(m).toContain('https://p.test/t/c/');
    expect(m).toContain('https://p.test/t/o/');
    expect(m).toContain('https://p.test/unsubscribe/');
    // Each tracked link's token names its position among the tracked links and the distinct URL count;
    // the unsubscribe footer's own link is neither tracked nor counted.
    const two = renderMessage({
      ...base,
      type: 'MARKETING',
      tracking: 'ENABLED',
      body: '<a href="https://x.test">x</a><a href="https://y.test">y</a><a href="https://x.test">x</a>',
    }).html;
    const places = [...two.matchAll(/https:\/\/p\.test\/t\/c\/([^"]+)/g)].map((t) => readClickToken(base.secret, t[1]));
    expect(places.map((c) => [c?.url, c?.position, c?.links])).toEqual([
      ['https://x.test', 0, 2],
      ['https://y.test', 1, 2],
      ['https://x.test', 2, 2],
    ]);
  });

  it('tokens verify only with the secret and their own purpose', () => {
    const id = '0190aaaa-0000-7000-8000-00000000abcd';
    const s = 'k'.repeat(40);
    expect(readOpenToken(s, openToken(s, id))).toBe(id);
    expect(readContactToken(s, contactToken(s, id))).toBe(id);
    expect(readClickToken(s, clickToken(s, id, 'https://x.test/é?a=1'))).toEqual({
      emailId: id,
      url: 'https://x.test/é?a=1',
      position: null,
      links: null,
    });
    expect(readOpenToken('other'.repeat(10), openToken(s, id))).toBeNull();
    expect(readContactToken(s, openToken(s, id))).toBeNull();
    expect(readOpenToken(s, contactToken(s, id))).toBeNull();
    expect(readClickToken(s, clickToken(s, id, 'javascript:alert(1)'))).toBeNull();
    // Since issue 36 a click token carries the link's place; tokens made before it still read.
    expect(readClickToken(s, clickToken(s, id, 'https://x.test/a', { position: 200, links: 3 }))).toEqual({
      emailId: id,
      url: 'https://x.test/a',
      position: 200,
      links: 3,
    });
    expect(readClickToken(s, clickToken(s, id, 'HTTPS://x.test/'))).toMatchObject({ position: null, links: null });
    expect(readOpenToken(s, 'garbage')).toBeNull();
  });
});
