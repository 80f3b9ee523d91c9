const KEY = 'pigeon.pendingInvitation';

/**
 * The invitation this browser opened last and has not yet answered (its id), so that a newcomer who
 * follows the invitation link, signs up and confirms the address is brought back to it: the
 * confirmation mail's link knows nothing of the invitation. Another browser still finds it among the
 * pending invitations on the welcome and projects screens.
 */
export const pendingInvitation = {
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
      /* private mode: the projects screen still lists it */
    }
  },
  clear: (): void => {
    try {
      localStorage.removeItem(KEY);
    } catch {
      /* nothing stored */
    }
  },
};
