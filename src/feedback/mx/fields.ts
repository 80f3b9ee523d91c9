/**
 * The field format of machine-readable report parts: `message/delivery-status` (RFC 3464 §2.1) and
 * `message/feedback-report` (RFC 5965 §3.1). A part is groups of RFC 5322-style header fields separated
 * by blank lines; a line starting with white space continues the field before it (folding). In a DSN
 * the first group holds the per-message fields (`Reporting-MTA`, `Arrival-Date`, …) and each following
 * group one recipient's fields (`Final-Recipient`, `Action`, `Status`, `Diagnostic-Code`, …); an ARF
 * report is one group (`Feedback-Type`, `Original-Mail-From`, …), whose fields may repeat.
 */

/** One group: field names in lower case, each with its values in order (unfolded, trimmed). */
export type FieldGroup = Map<string, string[]>;

/** First value of field `name` (any case) in `group`. */
export const field = (group: FieldGroup | undefined, name: string): string | undefined =>
  group?.get(name.toLowerCase())?.[0];

/**
 * Splits `text` into its groups. Lines that are not fields (no `name:`) are skipped; empty groups are
 * left out. A value of the form `type; value` (e.g. `rfc822; bob@example.com`) is kept whole.
 */
export function parseFieldGroups(text: string): FieldGroup[] {
  const groups: FieldGroup[] = [];
  let current: FieldGroup = new Map();
  let last: { name: string; index: number } | null = null;
  const close = () => {
    if (current.size) groups.push(current);
    current = new Map();
    last = null;
  };
  for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
    if (!line.trim()) {
      close();
      continue;
    }
    if (/^[ \t]/.test(line)) {
      if (last) {
        const values = current.get(last.name)!;
        values[last.index] = `${values[last.index]} ${line.trim()}`.trim();
      }
      continue;
    }
    const m = /^([!-9;-~]+)[ \t]*:(.*)$/.exec(line);
    if (!m) {
      last = null;
      continue;
    }
    const name = m[1].toLowerCase();
    const values = current.get(name) ?? [];
    values.push(m[2].trim());
    current.set(name, values);
    last = { name, index: values.length - 1 };
  }
  close();
  return groups;
}

/**
 * The address of a typed address field (`Final-Recipient: rfc822; bob@example.com`, RFC 3464 §2.3.2),
 * without angle brackets, lower-cased; undefined when none.
 */
export function typedAddress(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const semi = value.indexOf(';');
  const addr = (semi >= 0 ? value.slice(semi + 1) : value).trim().replace(/^<|>$/g, '').trim();
  return addr ? addr.toLowerCase() : undefined;
}
