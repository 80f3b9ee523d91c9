import { Button, Group, Modal, MultiSelect, Stack, Text, Textarea } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState, type FormEvent } from 'react';
import { ErrorAlert } from '../../components/ErrorAlert';
import { notifySuccess } from '../../components/notify';
import { FIRST_PAGE, useContacts } from '../contacts/api';
import { startExecutions, workflowKeys, type Workflow } from './api';
import { mergeIds, parseContactIds, startProblem, startSummary } from './manualStart';

interface Props {
  projectId: string;
  workflow: Workflow;
  opened: boolean;
  onClose: () => void;
}

/**
 * "Start for contacts": contacts picked by searching their email, and/or ids pasted, started through
 * `POST /workflows/:id/executions {contactIds}`. The answer says how many started and who was left
 * out by the re-entry rule; ids that are no contacts of the project are named and nothing starts.
 */
export function StartForContactsModal({ projectId, workflow, opened, onClose }: Props) {
  const qc = useQueryClient();
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search.trim(), 250);
  const [picked, setPicked] = useState<string[]>([]);
  // Emails of the picked contacts, so a pick stays labelled when the search moves on.
  const [emails, setEmails] = useState<Record<string, string>>({});
  const [pasted, setPasted] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const found = useContacts(projectId, { ...FIRST_PAGE, search: debounced, limit: 20 });
  const options = useMemo(() => {
    const rows = found.data?.data ?? [];
    const seen = new Set(rows.map((c) => c.id));
    return [
      ...picked.filter((id) => !seen.has(id)).map((id) => ({ value: id, label: emails[id] ?? id })),
      ...rows.map((c) => ({ value: c.id, label: c.email })),
    ];
  }, [found.data, picked, emails]);

  const start = useMutation({
    mutationFn: (ids: string[]) => startExecutions(projectId, workflow.id, ids),
    onSuccess: (r) => {
      notifySuccess(startSummary(r));
      void qc.invalidateQueries({ queryKey: workflowKeys.one(projectId, workflow.id) });
      void qc.invalidateQueries({ queryKey: workflowKeys.list(projectId) });
      close();
    },
  });
  const close = () => {
    setSearch('');
    setPicked([]);
    setPasted('');
    setProblem(null);
    start.reset();
    onClose();
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const { ids, invalid } = parseContactIds(pasted);
    const all = mergeIds(picked, ids);
    const p = startProblem(all, invalid);
    setProblem(p);
    if (!p) start.mutate(all);
  };

  return (
    <Modal opened={opened} onClose={close} title={<Text fw={600}>Start for contacts</Text>} size="lg" centered>
      <form onSubmit={submit} noValidate>
        <Stack gap="md">
          <Text size="sm" c="dimmed">
            Each contact starts at the first step, as if the trigger had fired for them
            {workflow.enabled ? '' : ', even while the workflow is off'}.
            {workflow.allowReentry
              ? ' Contacts still in the workflow are left out.'
              : ' Contacts who have been through it before are left out (re-entry is off).'}
          </Text>
          <MultiSelect
            label="Contacts"
            description="Search by email"
            placeholder={picked.length ? undefined : 'Type an email'}
            data={options}
            value={picked}
            onChange={(ids) => {
              const labels = Object.fromEntries(options.map((o) => [o.value, o.label]));
              setEmails((m) => ({ ...m, ...Object.fromEntries(ids.map((id) => [id, labels[id] ?? m[id] ?? id])) }));
              setPicked(ids);
            }}
            searchable
            searchValue={search}
            onSearchChange={setSearch}
            filter={({ options: o }) => o}
            nothingFoundMessage={found.isFetching ? 'Searching…' : 'No contact with this email'}
            maxValues={1000}
            data-autofocus
          />
          <Textarea
            label="Or paste contact ids"
            description="One per line, or separated by commas"
            autosize
            minRows={2}
            maxRows={8}
            value={pasted}
            onChange={(e) => setPasted(e.currentTarget.value)}
          />
          {problem && (
            <Text size="sm" c="red.8" role="alert">
              {problem}
            </Text>
          )}
          {start.isError && <ErrorAlert error={start.error} />}
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={start.isPending}>
              Start
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
