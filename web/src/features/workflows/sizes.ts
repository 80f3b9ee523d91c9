/** Size of a step node on the canvas: the layout spaces nodes by it and the node is drawn at it. */
export const NODE_W = 260;
export const NODE_H = 108;
/** Added to a node's height while its stats are drawn (two to three rows of figures). */
export const STATS_H = 64;
