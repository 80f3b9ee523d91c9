/** The public API's success envelope `{success: true, data}`. */
export const ok = <T>(data: T) => ({ success: true as const, data });
