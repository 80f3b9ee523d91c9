import { describe, expect, it } from 'vitest';
import { insertBeforeBodyEnd, rewriteLinks, rewriteLinksAndInsert } from './links.js';

// Link tracking and the pixel/footer insertion through htmlparser2's tokenizer.
describe('links', () => {
  const tag = (u: string) => `https://t.test/${encodeURIComponent(u)}`;

  it('reads hrefs as a browser does: not in comments, scripts or styles; the first href; entities decoded', () => {
    const html = `<!-- <a href="https://comment.test">c</a> --><script>var s = '<a href="https://script.test">';</script>`
      + `<style>a[href="https://style.test"]{}</style><a href="&#104;ttps://entity.test/?a=1&amp;b=2">e</a>`
      + `<a href="https://first.test" href="https://second.test">f</a><a HREF='  https://spaced.test  '>s</a>`
      + `<a data-href="https://data.test">d</a><a href="javascript:alert(1)">j</a><a href>n</a><a href=https://bare.test/x?y>b</a>`;
    const seen: string[] = [];
    const out = rewriteLinks(html, (u) => (seen.push(u), tag(u)));
    expect(seen).toEqual(['https://entity.test/?a=1&b=2', 'https://first.test', 'https://spaced.test', 'https://bare.test/x?y']);
    expect(out).toBe(`<!-- <a href="https://comment.test">c</a> --><script>var s = '<a href="https://script.test">';</script>`
      + `<style>a[href="https://style.test"]{}</style><a href="https://t.test/https%3A%2F%2Fentity.test%2F%3Fa%3D1%26b%3D2">e</a>`
      + `<a href="https://t.test/https%3A%2F%2Ffirst.test" href="https://second.test">f</a><a HREF="https://t.test/https%3A%2F%2Fspaced.test">s</a>`
      + `<a data-href="https://data.test">d</a><a href="javascript:alert(1)">j</a><a href>n</a><a href="https://t.test/https%3A%2F%2Fbare.test%2Fx%3Fy">b</a>`);
  });

  it('leaves a tag cut off at the end of the document alone', () => {
    expect(rewriteLinks('<p>x</p><a href="https://cut.test"', tag)).toBe('<p>x</p><a href="https://cut.test"');
  });

  it('inserts before the last real </body>, or at the end', () => {
    expect(insertBeforeBodyEnd('<body>a</body>b</BODY >c', '[x]')).toBe('<body>a</body>b[x]</BODY >c');
    expect(insertBeforeBodyEnd('<body>a</body><!-- </body> -->', '[x]')).toBe('<body>a[x]</body><!-- </body> -->');
    expect(insertBeforeBodyEnd('<p>no body</p>', '[x]')).toBe('<p>no body</p>[x]');
    expect(rewriteLinksAndInsert('<a href="https://a.test">a</a></body><a href="https://b.test">b</a>', tag, '[px]'))
      .toBe(`<a href="${tag('https://a.test')}">a</a>[px]</body><a href="${tag('https://b.test')}">b</a>`);
  });

  it('is linear on inputs that made the regex quadratic', () => {
    const out = rewriteLinks('<a'.repeat(200_000) + ' href="https://x.test">', tag);
    expect(out.length).toBeGreaterThan(400_000);
    const many = '<a title="x" href="https://x.test">x</a>'.repeat(25_000);
    expect(rewriteLinks(many, () => 'https://y.test')).toBe('<a title="x" href="https://y.test">x</a>'.repeat(25_000));
    expect(insertBeforeBodyEnd('</body>'.repeat(100_000), '!')).toBe('</body>'.repeat(99_999) + '!</body>');
  });
});
