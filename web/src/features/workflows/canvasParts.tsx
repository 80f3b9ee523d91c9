import { ActionIcon, Badge, Button, Group, Paper, Text, Tooltip } from '@mantine/core';
import { StatusBadge, type Tone } from '../../components/StatusBadge';
import { IconPencil, IconPlus } from '@tabler/icons-react';
import {
  BaseEdge,
  EdgeLabelRenderer,
  getSmoothStepPath,
  Handle,
  Position,
  type Edge,
  type EdgeProps,
  type Node,
  type NodeProps,
} from '@xyflow/react';
import type { EdgeView, NodeView } from './graphView';
import { NODE_H, NODE_W, STATS_H } from './sizes';
import { stepFigures, type Figure } from './stepFigures';

export type StepNodeType = Node<NodeView, 'step'>;
export type LinkEdgeType = Edge<EdgeView, 'link'>;

const RUN_TONE: Record<string, Tone> = {
  COMPLETED: 'success',
  FAILED: 'danger',
  WAITING: 'warning',
  RUNNING: 'warning',
  CANCELLED: 'neutral',
  SKIPPED: 'neutral',
  PENDING: 'neutral',
};

const MAIL_FIGURES = new Set(['sent', 'opens', 'clicks']);

/** A step's stats on its node: its runs on one line, its mail (SEND_EMAIL) on the next. */
function NodeFigures({ figures }: { figures: Figure[] }) {
  const row = (list: Figure[]) => (
    <Group gap={10} wrap="wrap" style={{ rowGap: 0 }}>
      {list.map((f) => (
        <Text key={f.key} size="xs" c="gray.7" title={f.title} data-figure={f.key} data-value={f.value}>
          <Text span size="xs" fw={700} c="dark.7">
            {f.value}
          </Text>{' '}
          {f.label}
        </Text>
      ))}
    </Group>
  );
  const mail = figures.filter((f) => MAIL_FIGURES.has(f.key));
  return (
    <div
      data-testid="step-figures"
      style={{ borderTop: '1px solid var(--mantine-color-gray-3)', marginTop: 6, paddingTop: 4 }}
    >
      {row(figures.filter((f) => !MAIL_FIGURES.has(f.key)))}
      {mail.length > 0 && row(mail)}
    </div>
  );
}

/** A step on the canvas: type, name, config summary, its run (execution view), its stats, the server's complaint, "add a step" buttons. */
export function StepNode({ data }: NodeProps<StepNodeType>) {
  const { step, run, error } = data;
  const faulty = error !== undefined;
  const border = faulty
    ? 'var(--mantine-color-red-7)'
    : run
      ? 'var(--mantine-color-teal-7)'
      : data.selected
        ? 'var(--mantine-color-blue-6)'
        : 'var(--mantine-color-gray-4)';
  return (
    <div
      data-testid="step-node"
      data-step-name={step.name}
      data-step-type={step.type}
      data-error={faulty ? 'true' : undefined}
      data-visited={run ? 'true' : undefined}
      style={{ width: NODE_W }}
    >
      <Handle type="target" position={Position.Top} isConnectable={false} />
      <Paper
        p="xs"
        style={{
          minHeight: NODE_H - 28 + (data.stats ? STATS_H : 0),
          borderWidth: faulty || run || data.selected ? 2 : 1,
          borderColor: border,
          borderStyle: 'solid',
        }}
        bg={step.type === 'TRIGGER' ? 'var(--mantine-color-blue-0)' : undefined}
      >
        <Group justify="space-between" gap={4} wrap="nowrap">
          <Text size="xs" fw={700} c="gray.7" tt="uppercase">
            {data.typeLabel}
          </Text>
          {data.onEdit && (
            <ActionIcon
              size="xs"
              variant="subtle"
              color="gray"
              className="nodrag nopan"
              aria-label={`Edit ${step.name}`}
              onClick={(e) => {
                e.stopPropagation();
                data.onEdit!();
              }}
            >
              <IconPencil size={12} />
            </ActionIcon>
          )}
          {run && (
            <StatusBadge size="xs" tone={RUN_TONE[run.status] ?? 'neutral'} data-testid="run-outcome">
              {run.outcome}
            </StatusBadge>
          )}
        </Group>
        <Text size="sm" fw={600} truncate="end">
          {step.name}
        </Text>
        <Text size="xs" c="gray.7" lineClamp={2}>
          {data.summary}
        </Text>
        {run && (
          <Text size="xs" c="gray.7" data-testid="run-time">
            {run.time}
          </Text>
        )}
        {data.stats && <NodeFigures figures={stepFigures(data.stats)} />}
        {error && (
          <Text size="xs" c="red.8" fw={600} data-testid="node-error">
            {error}
          </Text>
        )}
      </Paper>
      {data.adds.length > 0 && (
        <Group gap={4} justify="center" mt={4} className="nodrag nopan">
          {data.adds.map((a) => (
            <Button
              key={a.key}
              size="compact-xs"
              variant="default"
              leftSection={<IconPlus size={12} />}
              aria-label={a.ariaLabel}
              onClick={(e) => {
                e.stopPropagation();
                a.onClick();
              }}
            >
              {a.label}
            </Button>
          ))}
        </Group>
      )}
      <Handle type="source" position={Position.Bottom} isConnectable={false} />
    </div>
  );
}

/** A transition: a smooth line with its branch label and, while editing, a "+" to insert a step on it. */
export function LinkEdge({
  id,
  sourceX,
  sourceY,
  targetX,
  targetY,
  sourcePosition,
  targetPosition,
  data,
  markerEnd,
}: EdgeProps<LinkEdgeType>) {
  const [path, x, y] = getSmoothStepPath({
    sourceX,
    sourceY,
    targetX,
    targetY,
    sourcePosition,
    targetPosition,
    borderRadius: 8,
  });
  const color = data?.error
    ? 'var(--mantine-color-red-7)'
    : data?.visited
      ? 'var(--mantine-color-teal-7)'
      : 'var(--mantine-color-gray-6)';
  return (
    <>
      <BaseEdge
        id={id}
        path={path}
        markerEnd={markerEnd}
        style={{ stroke: color, strokeWidth: data?.error || data?.visited ? 3 : 1.5 }}
      />
      <EdgeLabelRenderer>
        <Group
          gap={4}
          wrap="nowrap"
          className="nodrag nopan"
          data-testid="edge-label"
          data-edge={`${data?.fromName} -> ${data?.toName}`}
          data-error={data?.error ? 'true' : undefined}
          data-visited={data?.visited ? 'true' : undefined}
          style={{
            position: 'absolute',
            transform: `translate(-50%, -50%) translate(${x}px, ${y}px)`,
            pointerEvents: 'all',
          }}
        >
          {data?.label && (
            <Badge
              size="sm"
              variant="white"
              c={data.error ? 'red.9' : 'gray.9'}
              style={{ border: `1px solid ${color}` }}
            >
              {data.label}
            </Badge>
          )}
          {data?.onInsert && (
            <Tooltip label="Insert a step here" withArrow>
              <ActionIcon
                size="sm"
                radius="xl"
                variant="default"
                aria-label={`Insert a step between ${data.fromName} and ${data.toName}`}
                onClick={data.onInsert}
              >
                <IconPlus size={12} />
              </ActionIcon>
            </Tooltip>
          )}
        </Group>
      </EdgeLabelRenderer>
    </>
  );
}
