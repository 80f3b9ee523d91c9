/** Escapes `\`, `%` and `_` so user text matches literally in `LIKE … ESCAPE '\'`. */
export const likeEscape = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** `%text%` with `text` escaped: a literal substring pattern for `LIKE … ESCAPE '\'`. */
export const containsPattern = (s: string): string => `%${likeEscape(s)}%`;
