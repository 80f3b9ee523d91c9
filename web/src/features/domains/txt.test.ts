import { describe, expect, it } from 'vitest';
import { quotedTxt, splitTxt } from './txt';

describe('splitTxt', () => {
  it('keeps a short value whole', () => {
    expect(splitTxt('v=spf1 a mx ~all')).toEqual(['v=spf1 a mx ~all']);
  });

  it('cuts a 2048-bit DKIM record into 255-character strings that join back to the value', () => {
    const value = `v=DKIM1; k=rsa; p=${'A'.repeat(392)}`;
    const parts = splitTxt(value);
    expect(parts.map((p) => p.length)).toEqual([255, value.length - 255]);
    expect(parts.join('')).toBe(value);
  });

  it('quotes each string and escapes quotes and backslashes', () => {
    expect(quotedTxt('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(quotedTxt('x'.repeat(256))).toBe(`"${'x'.repeat(255)}" "x"`);
  });
});
