import { Anchor, Paper, Stack, Switch, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { notifyError, notifySuccess } from '../../components/notify';
import { topicKeys } from '../topics/api';
import { contactKeys, setContactTopics, type Contact } from './api';

/**
 * The contact's topics (issue 35): one switch per topic of the project, joined or left with
 * `PUT /contacts/:id/topics` (recorded in the consent log, source dashboard). The master switch wins:
 * an unsubscribed contact keeps their choices but gets no topic's mail, which the panel says.
 */
export function ContactTopics({ projectId, contact }: { projectId: string; contact: Contact }) {
  const qc = useQueryClient();
  const change = useMutation({
    mutationFn: (v: { id: string; name: string; join: boolean }) =>
      setContactTopics(projectId, contact.id, { [v.id]: v.join }),
    onSuccess: (res, v) => {
      qc.setQueryData<Contact>(contactKeys.one(projectId, contact.id), (c) => (c ? { ...c, topics: res.topics } : c));
      void qc.invalidateQueries({ queryKey: contactKeys.consent(projectId, contact.id).slice(0, -1) });
      void qc.invalidateQueries({ queryKey: topicKeys.all(projectId) });
      notifySuccess(v.join ? `${contact.email} joined ${v.name}.` : `${contact.email} left ${v.name}.`);
    },
    onError: (err) => notifyError(err, 'Could not change the topic'),
  });
  return (
    <Paper p="lg">
      <Stack gap="sm">
        <Stack gap={2}>
          <Title order={2} size="h4">
            Topics
          </Title>
          <Text size="sm" c="dimmed">
            {contact.subscribed
              ? 'Marketing mail sent to a topic reaches this contact only in the topics switched on.'
              : 'Unsubscribed: no topic’s mail reaches this contact, whatever is switched on here.'}
          </Text>
        </Stack>
        {(contact.topics ?? []).length === 0 ? (
          <Text size="sm">
            This project has no topics yet.{' '}
            <Anchor component={Link} to="../../topics" relative="path">
              Create one under Topics
            </Anchor>
            .
          </Text>
        ) : (
          (contact.topics ?? []).map((t) => {
            const pending = change.isPending && change.variables?.id === t.id;
            return (
              <Switch
                key={t.id}
                label={t.name}
                checked={pending ? change.variables!.join : t.subscribed}
                disabled={change.isPending}
                onChange={(e) => change.mutate({ id: t.id, name: t.name, join: e.currentTarget.checked })}
              />
            );
          })
        )}
      </Stack>
    </Paper>
  );
}
