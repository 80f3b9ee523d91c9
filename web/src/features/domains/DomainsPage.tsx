import { Button, Group, Paper, Stack, Text, TextInput } from '@mantine/core';
import { useId } from '@mantine/hooks';
import { useQueryClient } from '@tanstack/react-query';
import { IconPlus, IconWorldWww } from '@tabler/icons-react';
import type { Domain } from '../../api/types';
import { EmptyState } from '../../components/EmptyState';
import { lazyRules } from '../../api/lazy-rules';
import { FormError, useApiForm } from '../../components/forms';
import { notifySuccess } from '../../components/notify';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';
import { projectKeys } from '../projects/api';
import { useProject } from '../projects/ProjectContext';
import { addDomain, domainKeys, useDomains } from './api';
import { DomainCard } from './DomainCard';

function AddDomainForm({ projectId }: { projectId: string }) {
  const qc = useQueryClient();
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: { domain: '' },
    // Loaded after the screen shows (zod with it), checked on submit.
    schema: lazyRules.createDomainBody,
    submit: (v) => addDomain(projectId, v.domain),
    onSuccess: (d) => {
      qc.setQueryData<Domain[]>(domainKeys.list(projectId), (list) => [...(list ?? []), d]);
      void qc.invalidateQueries({ queryKey: projectKeys.setupState(projectId) });
      form.reset();
      notifySuccess(`${d.domain} added: publish its DNS records, then verify.`);
    },
  });
  const id = useId();
  return (
    <Paper p="lg">
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="sm">
          <Stack gap={2}>
            <Text component="label" htmlFor={id} size="sm" fw={500}>
              Add a sending domain
            </Text>
            <Text size="xs" c="dimmed" id={`${id}-hint`}>
              The part after @ in your From address, e.g. example.com or mail.example.com.
            </Text>
          </Stack>
          <Group align="flex-start" gap="sm" wrap="nowrap">
            <TextInput
              id={id}
              aria-describedby={`${id}-hint`}
              placeholder="example.com"
              style={{ flex: 1 }}
              key={form.key('domain')}
              {...form.getInputProps('domain')}
            />
            <Button type="submit" loading={mutation.isPending} leftSection={<IconPlus size={16} />}>
              Add domain
            </Button>
          </Group>
          <FormError error={formError} />
        </Stack>
      </form>
    </Paper>
  );
}

/** `/p/:projectId/domains`: sender domains, their DNS records and verification. */
export function DomainsPage() {
  const { project } = useProject();
  const domains = useDomains(project.id);
  return (
    <>
      <PageHeader
        title="Domains"
        description="Pigeon signs every mail with the DKIM key of its From domain. Add the domains you send from, publish their records at your DNS provider, then verify."
      />
      <Stack gap="lg">
        <AddDomainForm projectId={project.id} />
        <QueryState
          query={domains}
          empty={
            <EmptyState
              icon={<IconWorldWww size={28} />}
              title="No sending domain yet"
              description="Add the domain of your From address above. You will get three DNS records to publish; once the DKIM record is found, the domain is verified and ready to send."
            />
          }
        >
          {(list) => (
            <Stack gap="lg">
              {list.map((d) => (
                <DomainCard key={d.id} projectId={project.id} domain={d} />
              ))}
            </Stack>
          )}
        </QueryState>
      </Stack>
    </>
  );
}
