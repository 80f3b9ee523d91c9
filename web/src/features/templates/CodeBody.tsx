import { Code, Group, Input, Skeleton, Stack, Text } from '@mantine/core';
import { lazy, Suspense, type RefObject } from 'react';
import { SyntaxErrorNote, type SyntaxProblem } from '../../components/PreviewPane';
import type { TemplatePreview } from './api';
import { VariablePicker } from './VariablePicker';
import { VariableWarnings } from './VariableWarnings';

// CodeMirror is the heaviest part of the page: it loads after the form is on screen.
const HtmlEditor = lazy(async () => ({ default: (await import('./HtmlEditor')).HtmlEditor }));

interface CodeBodyProps {
  projectId: string;
  format: 'html' | 'mjml';
  value: string;
  onChange: (body: string) => void;
  /** The server's refusal of the last save, about the body. */
  error: string | undefined;
  problem: SyntaxProblem | null;
  reserved: TemplatePreview['reservedVariables'];
  unknown: TemplatePreview['unknownVariables'];
  insertRef: RefObject<((text: string) => void) | null>;
}

/** The body of an HTML or MJML template in the code editor, with the variable picker and the syntax note. */
export function CodeBody({
  projectId,
  format,
  value,
  onChange,
  error,
  problem,
  reserved,
  unknown,
  insertRef,
}: CodeBodyProps) {
  const label = format === 'mjml' ? 'MJML body' : 'HTML body';
  return (
    <Stack gap="xs">
      <Group justify="space-between" align="flex-end" wrap="nowrap">
        <Input.Label id="body-label" required>
          {label}
        </Input.Label>
        <VariablePicker projectId={projectId} reserved={reserved} onPick={(tag) => insertRef.current?.(tag)} />
      </Group>
      <Suspense fallback={<Skeleton height={420} />}>
        <HtmlEditor
          value={value}
          onChange={onChange}
          label={label}
          describedBy={problem?.field === 'body' ? 'body-syntax' : error ? 'body-error' : undefined}
          invalid={Boolean(error) || problem?.field === 'body'}
          insertRef={insertRef}
        />
      </Suspense>
      {/* The server's refusal of a save says what the syntax note already shows: one of them is enough. */}
      {error && problem?.field !== 'body' && (
        <Text id="body-error" size="sm" c="red.9">
          {error}
        </Text>
      )}
      {problem?.field === 'body' && (
        <div id="body-syntax">
          <SyntaxErrorNote problem={problem} />
        </div>
      )}
      {!problem && <VariableWarnings projectId={projectId} unknown={unknown} />}
      <Text size="xs" c="dimmed">
        Event data: in a workflow, <Code fz="xs">{'{{plan}}'}</Code> also reads the key <Code fz="xs">plan</Code> of the
        event that started it; with <Code fz="xs">/v1/send</Code>, the keys of its <Code fz="xs">data</Code>. Write{' '}
        <Code fz="xs">{'{{plan ?? "free"}}'}</Code> for a fallback.
        {format === 'mjml' && ' MJML is compiled to responsive HTML when it is saved.'}
      </Text>
    </Stack>
  );
}
