import { useCallback, useState } from 'react';

/** How many states undo can go back. */
const LIMIT = 100;
/** Edits of the same field closer than this (ms) are one undo step (typing a word is not 10 steps). */
const MERGE_MS = 800;

interface State<T> {
  past: T[];
  present: T;
  future: T[];
  /** The field of the last edit and when it was made, for merging keystrokes. */
  last: { key: string; at: number } | null;
}

/**
 * An undo/redo history of whole document states (the documents are small and immutable, so a state is
 * a pointer, not a copy). `set(next, key)` records a step; a `key` names the field being typed in, and
 * edits of the same key within 800 ms replace the last step instead of adding one.
 */
export function useHistory<T>(initial: T) {
  const [s, setS] = useState<State<T>>({ past: [], present: initial, future: [], last: null });
  const set = useCallback((next: T, key?: string) => {
    setS((cur) => {
      if (next === cur.present) return cur;
      const now = Date.now();
      const merge = key !== undefined && cur.last?.key === key && now - cur.last.at < MERGE_MS;
      return {
        past: merge ? cur.past : [...cur.past, cur.present].slice(-LIMIT),
        present: next,
        future: [],
        last: key === undefined ? null : { key, at: now },
      };
    });
  }, []);
  const undo = useCallback(() => {
    setS((cur) =>
      cur.past.length === 0
        ? cur
        : {
            past: cur.past.slice(0, -1),
            present: cur.past[cur.past.length - 1],
            future: [cur.present, ...cur.future],
            last: null,
          },
    );
  }, []);
  const redo = useCallback(() => {
    setS((cur) =>
      cur.future.length === 0
        ? cur
        : { past: [...cur.past, cur.present], present: cur.future[0], future: cur.future.slice(1), last: null },
    );
  }, []);
  return { doc: s.present, set, undo, redo, canUndo: s.past.length > 0, canRedo: s.future.length > 0 };
}
