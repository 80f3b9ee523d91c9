import { Skeleton } from '@mantine/core';
import { lazy, Suspense, useMemo } from 'react';
import { buildView, type CanvasProps } from './graphView';

export type { GraphFault } from './graphView';

// React Flow and the layout are the heaviest code of the dashboard: they load only when a graph is shown.
const Canvas = lazy(() => import('./WorkflowCanvas').then((m) => ({ default: m.WorkflowCanvas })));

/**
 * The workflow graph: every step with its config summary, labelled transitions; with `onAddAfter` /
 * `onInsert` it offers "add a step" buttons, `fault` outlines what the server refused in red, `runs`
 * outlines an execution's path with each step's time and outcome, `stats` draws each step's figures. React Flow loads on first use,
 * with a placeholder of the canvas's size meanwhile.
 */
export function WorkflowCanvas(props: CanvasProps) {
  const { workflow, templateName, selectedId, onSelect, onAddAfter, onInsert, fault, runs, stats } = props;
  const view = useMemo(
    () => buildView({ workflow, templateName, selectedId, onSelect, onAddAfter, onInsert, fault, runs, stats }),
    [workflow, templateName, selectedId, onSelect, onAddAfter, onInsert, fault, runs, stats],
  );
  const height = props.height ?? 620;
  return (
    <Suspense fallback={<Skeleton h={height} radius="md" aria-label="Loading the graph" />}>
      <Canvas view={view} onSelect={props.onSelect} height={height} />
    </Suspense>
  );
}
