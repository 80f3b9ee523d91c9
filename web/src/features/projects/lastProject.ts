const KEY = 'pigeon.lastProject';

/** The project the user last opened (this browser only), so the start page reopens it. */
export const lastProject = {
  get: (): string | null => {
    try {
      return localStorage.getItem(KEY);
    } catch {
      return null;
    }
  },
  set: (id: string): void => {
    try {
      localStorage.setItem(KEY, id);
    } catch {
      /* private mode: nothing to remember */
    }
  },
};
