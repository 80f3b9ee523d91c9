import { Box } from '@mantine/core';
import { useElementSize } from '@mantine/hooks';
import { Background, Controls, MarkerType, ReactFlow, ReactFlowProvider, useReactFlow } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { use, useEffect, useMemo } from 'react';
import type { Step } from './api';
import { LinkEdge, StepNode, type LinkEdgeType, type StepNodeType } from './canvasParts';
import type { GraphView } from './graphView';
import { NODE_H, STATS_H } from './sizes';

let layoutModule: Promise<typeof import('./layout')> | undefined;
/** The dagre layout, its own chunk, loaded once on first use. */
const loadLayout = () => (layoutModule ??= import('./layout'));

const nodeTypes = { step: StepNode };
const edgeTypes = { link: LinkEdge };

/** Refits the view when the graph's shape changes (a step added or removed). */
function FitOnChange({ shape }: { shape: string }) {
  const flow = useReactFlow();
  useEffect(() => {
    const t = setTimeout(() => void flow.fitView({ padding: 0.15, maxZoom: 1 }), 50);
    return () => clearTimeout(t);
  }, [shape, flow]);
  return null;
}

/**
 * The workflow as a top-to-bottom graph: React Flow draws the nodes and labelled edges of `view`
 * (graphView.ts) at the positions dagre gives them. Steps cannot be dragged: the layout places them.
 */
export function WorkflowCanvas({
  view,
  onSelect,
  height,
}: {
  view: GraphView;
  onSelect?: (s: Step) => void;
  height: number;
}) {
  const { layout } = use(loadLayout());
  // The side panel narrows the canvas: refit when its width changes too.
  const { ref, width } = useElementSize();
  const { nodes, edges } = useMemo(() => {
    const pos = layout(view.steps, view.transitions, view.withStats ? NODE_H + STATS_H : NODE_H);
    const nodes: StepNodeType[] = view.nodes.map((n) => ({
      id: n.id,
      type: 'step',
      position: pos.get(n.id)!,
      data: n,
    }));
    const edges: LinkEdgeType[] = view.edges.map((e) => ({
      id: e.id,
      source: e.source,
      target: e.target,
      type: 'link',
      markerEnd: { type: MarkerType.ArrowClosed, color: e.error ? '#c92a2a' : e.visited ? '#087f5b' : '#868e96' },
      data: e,
    }));
    return { nodes, edges };
  }, [view, layout]);

  return (
    <Box
      ref={ref}
      h={height}
      style={{
        border: '1px solid var(--mantine-color-gray-3)',
        borderRadius: 8,
        background: 'var(--mantine-color-gray-0)',
      }}
      data-testid="workflow-canvas"
    >
      <ReactFlowProvider>
        <ReactFlow
          nodes={nodes}
          edges={edges}
          nodeTypes={nodeTypes}
          edgeTypes={edgeTypes}
          nodesDraggable={false}
          nodesConnectable={false}
          elementsSelectable={!!onSelect}
          onNodeClick={(_, n) => onSelect?.((n as StepNodeType).data.step)}
          fitView
          fitViewOptions={{ padding: 0.15, maxZoom: 1 }}
          minZoom={0.2}
          proOptions={{ hideAttribution: true }}
          aria-label={view.title}
        >
          <Background gap={20} />
          <Controls showInteractive={false} />
          <FitOnChange
            shape={`${view.steps.length}:${view.transitions.length}:${Math.round(width / 40)}:${view.withStats}`}
          />
        </ReactFlow>
      </ReactFlowProvider>
    </Box>
  );
}
