import dagre from '@dagrejs/dagre';
import type { Step, Transition } from './api';
import { NODE_H, NODE_W } from './sizes';

// Its own chunk: the canvas loads it next to React Flow, so no screen carries both at once.

/**
 * Top-to-bottom positions of the steps (dagre): the trigger first, each step under the one before,
 * branches side by side (`yes` left of `no`, `event` left of `timeout`, a SPLIT's or SWITCH's branches in
 * key order with `default` last); `nodeH` is the nodes' height
 * (taller with stats drawn).
 */
export function layout(
  steps: Step[],
  transitions: Transition[],
  nodeH = NODE_H,
): Map<string, { x: number; y: number }> {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'TB', nodesep: 60, ranksep: 70, marginx: 20, marginy: 20 });
  g.setDefaultEdgeLabel(() => ({}));
  // Insertion order decides left/right among siblings: trigger first, then by creation.
  const ordered = [...steps].sort((a, b) =>
    a.type === 'TRIGGER' ? -1 : b.type === 'TRIGGER' ? 1 : a.createdAt.localeCompare(b.createdAt),
  );
  for (const s of ordered) g.setNode(s.id, { width: NODE_W, height: nodeH });
  // dagre puts an edge added later left of its siblings: the fallback ways out (`no`, `timeout`, a
  // SWITCH's `default`) go in first, then the branches from the last key to the first, so A is left of B.
  const last = (t: Transition) => t.branch === 'no' || t.branch === 'default' || t.waitOutcome === 'TIMEOUT';
  const order = (a: Transition, b: Transition) =>
    Number(last(b)) - Number(last(a)) || (b.branch ?? '').localeCompare(a.branch ?? '');
  for (const t of [...transitions].sort(order)) g.setEdge(t.fromStepId, t.toStepId);
  dagre.layout(g);
  const pos = new Map<string, { x: number; y: number }>();
  for (const s of steps) {
    const n = g.node(s.id);
    pos.set(s.id, { x: n.x - NODE_W / 2, y: n.y - nodeH / 2 });
  }
  return pos;
}
