import { Anchor, Button, Group, Paper, SimpleGrid, Stack, Switch, Text, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { IconArrowLeft, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiError } from '../../api/errors';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ErrorAlert } from '../../components/ErrorAlert';
import { NotFound } from '../../components/NotFound';
import { notifyError, notifySuccess } from '../../components/notify';
import { PageHeader } from '../../components/PageHeader';
import { ContactDataActions } from '../exports/ContactDataActions';
import { QueryState } from '../../components/QueryState';
import { StatusBadge } from '../../components/StatusBadge';
import { formatDateTime } from '../../lib/format';
import { useProject } from '../projects/ProjectContext';
import { contactKeys, deleteContact, patchContact, useContact, type Contact } from './api';
import { ContactActivity } from './ContactActivity';
import { ContactConsent } from './ContactConsent';
import { ContactTopics } from './ContactTopics';
import { DataEditor } from './DataEditor';
import { dataFromRows, rowsFromData, type RowErrors } from './dataRows';

/** The data editor of a contact, saved with `PATCH /contacts/:id` (changed keys only; removed keys as null). */
function DataSection({ projectId, contact }: { projectId: string; contact: Contact }) {
  const qc = useQueryClient();
  const [rows, setRows] = useState(() => rowsFromData(contact.data));
  const [errors, setErrors] = useState<Record<string, RowErrors>>({});
  const save = useMutation({
    mutationFn: (data: Record<string, unknown>) => patchContact(projectId, contact.id, { data }),
    onSuccess: (c) => {
      // PATCH answers the contact without its topics: keep those the page has.
      qc.setQueryData<Contact>(contactKeys.one(projectId, c.id), (old) => (old ? { ...old, ...c } : undefined));
      void qc.invalidateQueries({ queryKey: contactKeys.all(projectId) });
      setRows(rowsFromData(c.data));
      notifySuccess('Data saved.');
    },
  });
  const onSave = () => {
    const d = dataFromRows(rows, contact.data);
    setErrors(d.errors);
    if (!d.valid) return;
    if (Object.keys(d.data).length === 0) {
      notifySuccess('Nothing changed.');
      return;
    }
    save.mutate(d.data);
  };
  return (
    <Paper p="lg">
      <Stack gap="sm">
        <Stack gap={2}>
          <Title order={2} size="h4">
            Data
          </Title>
          <Text size="sm" c="dimmed">
            Custom fields, available in templates as {'{{key}}'} and in segment conditions.
          </Text>
        </Stack>
        <DataEditor
          rows={rows}
          onChange={(r) => {
            setRows(r);
            save.reset();
          }}
          errors={errors}
        />
        {save.isError && <ErrorAlert error={save.error} />}
        <Group justify="flex-end" gap="sm">
          <Button
            variant="default"
            onClick={() => {
              setRows(rowsFromData(contact.data));
              setErrors({});
              save.reset();
            }}
          >
            Discard changes
          </Button>
          <Button onClick={onSave} loading={save.isPending}>
            Save data
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}

/** Why an address is on the suppression list, in words. */
const SUPPRESSION_REASONS: Record<NonNullable<Contact['suppression']>['reason'], string> = {
  bounce: 'Hard bounce',
  complaint: 'Marked as spam',
  manual: 'Added by hand',
  unsubscribe: 'Opted out elsewhere',
};

/** Subscription switch (`PATCH {subscribed}`, which records contact.subscribed/unsubscribed) and dates. */
function SummarySection({ projectId, contact }: { projectId: string; contact: Contact }) {
  const qc = useQueryClient();
  const toggle = useMutation({
    mutationFn: (subscribed: boolean) => patchContact(projectId, contact.id, { subscribed }),
    onSuccess: (c) => {
      // PATCH answers the contact without its topics: keep those the page has.
      qc.setQueryData<Contact>(contactKeys.one(projectId, c.id), (old) => (old ? { ...old, ...c } : undefined));
      void qc.invalidateQueries({ queryKey: contactKeys.all(projectId) });
      notifySuccess(c.subscribed ? `${c.email} is subscribed.` : `${c.email} is unsubscribed: no more campaigns.`);
    },
    onError: (err) => notifyError(err, 'Could not change the subscription'),
  });
  return (
    <Paper p="lg">
      <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="lg">
        <Stack gap={6}>
          <Switch
            label="Subscribed"
            description={contact.subscribed ? 'Receives campaigns' : 'Gets transactional mail only'}
            checked={toggle.isPending ? toggle.variables : contact.subscribed}
            disabled={toggle.isPending}
            onChange={(e) => toggle.mutate(e.currentTarget.checked)}
          />
          {contact.suppression && (
            <Text size="xs" c="dimmed" data-testid="suppression">
              <StatusBadge tone="danger" size="xs">
                Suppressed
              </StatusBadge>{' '}
              {SUPPRESSION_REASONS[contact.suppression.reason]} on {formatDateTime(contact.suppression.createdAt)}: no
              marketing mail
            </Text>
          )}
        </Stack>
        <Stack gap={2}>
          <Text size="xs" c="dimmed">
            Added
          </Text>
          <Text size="sm">{formatDateTime(contact.createdAt)}</Text>
        </Stack>
        <Stack gap={2}>
          <Text size="xs" c="dimmed">
            Last changed
          </Text>
          <Text size="sm">{formatDateTime(contact.updatedAt)}</Text>
        </Stack>
      </SimpleGrid>
    </Paper>
  );
}

/**
 * `/p/:projectId/contacts/:contactId`: one contact (`GET /contacts/:id`): subscription, topics, data editor,
 * consent history, emails and events, delete. Another project's contact, or a deleted one, is "not found".
 */
export function ContactPage() {
  const { project } = useProject();
  const { contactId = '' } = useParams();
  const navigate = useNavigate();
  const qc = useQueryClient();
  const contact = useContact(project.id, contactId);
  const [deleting, del] = useDisclosure();
  const back = (
    <Anchor component={Link} to=".." relative="path" size="sm">
      <Group gap={4}>
        <IconArrowLeft size={14} />
        All contacts
      </Group>
    </Anchor>
  );

  if (contact.isError && contact.error instanceof ApiError && contact.error.status === 404) {
    return (
      <NotFound
        title="Contact not found"
        description="No contact of this project has this address. It may have been deleted, or it belongs to another project."
      />
    );
  }
  return (
    <QueryState query={contact} skeletonRows={5}>
      {(c) => (
        <>
          <Stack gap={4} mb="xs">
            {back}
          </Stack>
          <PageHeader
            title={c.email}
            description="A contact of this project: their subscription, data and history."
            actions={
              <Group gap="xs">
                <ContactDataActions projectId={project.id} contact={c} />
                <Button variant="subtle" color="red" leftSection={<IconTrash size={16} />} onClick={del.open}>
                  Delete contact
                </Button>
              </Group>
            }
          />
          <Stack gap="lg">
            <SummarySection projectId={project.id} contact={c} />
            <ContactTopics projectId={project.id} contact={c} />
            <DataSection key={c.id} projectId={project.id} contact={c} />
            <ContactConsent projectId={project.id} contactId={c.id} />
            <ContactActivity projectId={project.id} contactId={c.id} />
          </Stack>
          <ConfirmDialog
            opened={deleting}
            onClose={del.close}
            title={`Delete ${c.email}?`}
            confirmLabel="Delete contact"
            danger
            onConfirm={async () => {
              await deleteContact(project.id, c.id);
              qc.removeQueries({ queryKey: contactKeys.one(project.id, c.id) });
              void qc.invalidateQueries({ queryKey: contactKeys.all(project.id) });
              notifySuccess(`${c.email} was deleted.`);
              void navigate(`/p/${project.id}/contacts`);
            }}
          >
            <Text size="sm">
              The contact is removed for good with their data, events, segment memberships and running workflows. Emails
              already sent stay in the activity feed. This cannot be undone.
            </Text>
          </ConfirmDialog>
        </>
      )}
    </QueryState>
  );
}
