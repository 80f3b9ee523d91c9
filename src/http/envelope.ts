/** The public API's success envelope (api.md §4: `{success: true, data}`). */
export const ok = <T>(data: T) => ({ success: true as const, data });
