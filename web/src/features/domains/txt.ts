/** Longest character-string of a TXT record (RFC 1035 §3.3: a length octet, so 255). */
export const TXT_STRING_MAX = 255;

/**
 * Splits a TXT value into strings of at most 255 characters, the form DNS providers that do not split
 * long values themselves (BIND zone files, Route 53, many registrars) expect; resolvers join the
 * strings back without separator (RFC 7208 §3.3, RFC 6376 §3.6.2.2).
 */
export function splitTxt(value: string): string[] {
  const parts: string[] = [];
  for (let i = 0; i < value.length; i += TXT_STRING_MAX) parts.push(value.slice(i, i + TXT_STRING_MAX));
  return parts.length ? parts : [''];
}

/** The split value as zone-file text: each string in double quotes, separated by a space. */
export function quotedTxt(value: string): string {
  return splitTxt(value)
    .map((s) => `"${s.replace(/["\\]/g, (c) => `\\${c}`)}"`)
    .join(' ');
}
