import { UNSAFE_createBrowserHistory as createBrowserHistory, type To } from 'react-router';

/**
 * The dashboard's browser history (given to React Router's HistoryRouter in app/App.tsx), with one
 * guard that may hold a move inside the dashboard: a link, a navigate() call, back or forward.
 *
 * Why not React Router's useBlocker: it needs a data router (createBrowserRouter), which puts ~18 kB
 * gzipped of loader and action machinery the dashboard does not use into every first screen
 * (bench/web-bundle.ts). This does the part the dashboard uses: a held push or replace is simply not
 * made; a held back/forward is undone at once (the browser has already moved) and redone if the
 * user chooses to leave, as useBlocker does.
 */
export const history = createBrowserHistory({ v5Compat: true });

/** A move the guard is asked about: the paths (with the base path) it leaves and goes to, and how to make it anyway. */
export interface HeldMove {
  from: string;
  to: string;
  /** Makes the move, past the guard. */
  proceed: () => void;
}

/** Returns true to hold the move (the guard then keeps `proceed` to make it later), false to let it go. */
export type NavigationGuard = (move: HeldMove) => boolean;

let guard: NavigationGuard | null = null;
/** The path the router shows (on back/forward, the address bar is already elsewhere when the guard is asked). */
let shown = history.location.pathname;
/** The next pop is ours (undoing a held back/forward, or redoing it): it goes through unasked and unseen. */
let ownPop: 'undo' | 'redo' | null = null;

/**
 * Sets the one guard (a screen with unsaved changes; only one is on screen at a time) and returns
 * the function that removes it.
 */
export function setNavigationGuard(g: NavigationGuard): () => void {
  guard = g;
  return () => {
    if (guard === g) guard = null;
  };
}

const pathOf = (to: To) => history.createURL(to).pathname;
const held = (to: To, go: () => void) => guard !== null && guard({ from: shown, to: pathOf(to), proceed: go });

const { push, replace, listen } = history;
history.push = (to, state) => {
  if (!held(to, () => push(to, state))) push(to, state);
};
history.replace = (to, state) => {
  if (!held(to, () => replace(to, state))) replace(to, state);
};
history.listen = (listener) =>
  listen((update) => {
    if (ownPop === 'undo') {
      // The router never saw the held move: it keeps showing the screen the browser is back on.
      ownPop = null;
      return;
    }
    if (ownPop === 'redo') {
      ownPop = null;
      shown = update.location.pathname;
      listener(update);
      return;
    }
    const { delta } = update;
    if (update.action === 'POP' && delta && held(update.location, () => ((ownPop = 'redo'), history.go(delta)))) {
      ownPop = 'undo';
      history.go(-delta);
      return;
    }
    shown = update.location.pathname;
    listener(update);
  });
