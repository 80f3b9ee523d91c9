import { describe, expect, it } from 'vitest';
import { applyPlan, insertBeforeBodyEnd, planEdits, rewriteLinks } from './links.js';

// Link tracking and the pixel/footer insertion through htmlparser2's tokenizer.
describe('links', () => {
  const tag = (u: string) => `https://t.test/${encodeURIComponent(u)}`;

  it('reads hrefs as a browser does: not in comments, scripts or styles; the first href; entities decoded', () => {
    const html =
      `<!-- <a href="https://comment.test">c</a> --><script>var s = '<a href="https://script.test">';</script>` +
      `<style>a[href="https://style.test"]{}</style><a href="&#104;ttps://entity.test/?a=1&amp;b=2">e</a>` +
      `<a href="https://first.test" href="https://second.test">f</a><a HREF='  https://spaced.test  '>s</a>` +
      `<a data-href="https://data.test">d</a><a href="javascript:alert(1)">j</a><a href>n</a><a href=https://bare.test/x?y>b</a>`;
    const seen: string[] = [];
    const out = rewriteLinks(html, (u) => (seen.push(u), tag(u)));
    expect(seen).toEqual([
      'https://entity.test/?a=1&b=2',
      'https://first.test',
      'https://spaced.test',
      'https://bare.test/x?y',
    ]);
    expect(out).toBe(
      `<!-- <a href="https://comment.test">c</a> --><script>var s = '<a href="https://script.test">';</script>` +
        `<style>a[href="https://style.test"]{}</style><a href="https://t.test/https%3A%2F%2Fentity.test%2F%3Fa%3D1%26b%3D2">e</a>` +
        `<a href="https://t.test/https%3A%2F%2Ffirst.test" href="https://second.test">f</a><a HREF="https://t.test/https%3A%2F%2Fspaced.test">s</a>` +
        `<a data-href="https://data.test">d</a><a href="javascript:alert(1)">j</a><a href>n</a><a href="https://t.test/https%3A%2F%2Fbare.test%2Fx%3Fy">b</a>`,
    );
  });

  it('tells each tracked link its position and the count of distinct URLs, skipped links left out', () => {
    const html =
      '<a href="https://a.test">1</a><a href="https://own.test/unsub">u</a><a href="https://b.test">2</a>' +
      '<a href="https://a.test">3</a><a href="mailto:x@y.test">m</a>';
    const seen: Array<[string, number, number]> = [];
    const out = rewriteLinks(
      html,
      (u, l) => (seen.push([u, l.position, l.links]), `https://t.test/${l.position}`),
      (u) => u.startsWith('https://own.test/'),
    );
    expect(seen).toEqual([
      ['https://a.test', 0, 2],
      ['https://b.test', 1, 2],
      ['https://a.test', 2, 2],
    ]);
    expect(out).toContain('<a href="https://own.test/unsub">u</a>');
    expect(out).toContain('<a href="https://t.test/2">3</a>');
  });

  it('leaves a tag cut off at the end of the document alone', () => {
    expect(rewriteLinks('<p>x</p><a href="https://cut.test"', tag)).toBe('<p>x</p><a href="https://cut.test"');
  });

  it('inserts before the last real </body>, or at the end', () => {
    expect(insertBeforeBodyEnd('<body>a</body>b</BODY >c', '[x]')).toBe('<body>a</body>b[x]</BODY >c');
    expect(insertBeforeBodyEnd('<body>a</body><!-- </body> -->', '[x]')).toBe('<body>a[x]</body><!-- </body> -->');
    expect(insertBeforeBodyEnd('<p>no body</p>', '[x]')).toBe('<p>no body</p>[x]');
    const plan = planEdits('<a href="https://a.test">a</a></body><a href="https://b.test">b</a>', tag);
    expect(applyPlan(plan, '', { then: '[px]' })).toBe(
      `<a href="${tag('https://a.test')}">a</a>[px]</body><a href="${tag('https://b.test')}">b</a>`,
    );
    expect(applyPlan(plan, '[f]', { then: '[px]' })).toBe(
      `<a href="${tag('https://a.test')}">a</a>[f][px]</body><a href="${tag('https://b.test')}">b</a>`,
    );
    expect(applyPlan(plan, '[f]', { links: false })).toBe(
      '<a href="https://a.test">a</a>[f]</body><a href="https://b.test">b</a>',
    );
  });

  it('plans once what inserting a footer and then rewriting the links gives', () => {
    // The footer links to our own URL, which the rewrite keeps; everything else is rewritten.
    const keepOwn = (u: string) => (u.startsWith('https://own.test/') ? null : tag(u));
    const footer = '<div><a href="https://own.test/unsubscribe/x">Unsubscribe</a></div>';
    const pixel = '<img src="https://p.test/o">';
    for (const html of [
      '<html><body><p><a href="https://a.test/x?y=1&amp;z=2">a</a></p></body></html>',
      '<body><a href=https://b.test>b</a></body><a href="https://c.test">after</a>',
      '<p>no body <a href="https://d.test">d</a></p>',
      '<body><!-- <a href="https://e.test"> --><a href="https://own.test/manage">m</a></BODY>',
      '<a href="https://f.test"',
      '<p>x</p><a href="https://g.test',
      '<a href=https://h.test title=',
      '<p class="x"',
      '<p>x</p><!-- unclosed <a href="https://i.test">',
      '<body><a href="https://j.test">j</a></body><a href="https://k.test"',
    ]) {
      const withFooter = insertBeforeBodyEnd(html, footer);
      expect(applyPlan(planEdits(html, keepOwn), footer)).toBe(rewriteLinks(withFooter, keepOwn));
      expect(applyPlan(planEdits(html, keepOwn), footer, { links: false })).toBe(withFooter);
      // The pixel goes in after the rewrite, where </body> is once the footer is in (the two-pass way).
      expect(applyPlan(planEdits(html, keepOwn), footer, { then: pixel })).toBe(
        applyPlan(planEdits(withFooter, keepOwn), '', { then: pixel }),
      );
    }
    // Without a footer the pixel is added to the HTML as scanned: an unfinished tag stays unrewritten.
    expect(applyPlan(planEdits('<a href="https://f.test"', keepOwn), '', { then: pixel })).toBe(
      `<a href="https://f.test"${pixel}`,
    );
    expect(applyPlan(planEdits('<a href="https://f.test"', keepOwn), footer, { then: pixel })).toBe(
      `<a href="${tag('https://f.test')}"${footer}${pixel}`,
    );
  });

  it('is linear on inputs that made the regex quadratic', () => {
    const out = rewriteLinks('<a'.repeat(200_000) + ' href="https://x.test">', tag);
    expect(out.length).toBeGreaterThan(400_000);
    const many = '<a title="x" href="https://x.test">x</a>'.repeat(25_000);
    expect(rewriteLinks(many, () => 'https://y.test')).toBe('<a title="x" href="https://y.test">x</a>'.repeat(25_000));
    expect(insertBeforeBodyEnd('</body>'.repeat(100_000), '!')).toBe('</body>'.repeat(99_999) + '!</body>');
  });
});
