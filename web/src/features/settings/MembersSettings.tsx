import {
  Badge,
  Button,
  Group,
  NativeSelect,
  Paper,
  Stack,
  Text,
  TextInput,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { IconUserPlus, IconUsers } from '@tabler/icons-react';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import type { Invitation, Member, Role } from '../../api/types';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { lazyRules } from '../../api/lazy-rules';
import { FormError, useApiForm } from '../../components/forms';
import { notifyError, notifySuccess } from '../../components/notify';
import { QueryState } from '../../components/QueryState';
import { formatDate } from '../../lib/format';
import { useMe } from '../auth/api';
import { projectKeys } from '../projects/api';
import { needsRole } from '../projects/permissions';
import { useProject } from '../projects/ProjectContext';
import {
  addMember,
  changeRole,
  removeMember,
  resendInvitation,
  revokeInvitation,
  settingsKeys,
  useInvitations,
  useMembers,
} from './api';

const ROLE_HELP: Record<Role, string> = {
  OWNER: 'everything, including billing, reset and delete',
  ADMIN: 'manages members and API keys',
  MEMBER: 'works with contacts, templates, campaigns',
};

function InviteForm({ projectId }: { projectId: string }) {
  const qc = useQueryClient();
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: { email: '', role: 'MEMBER' as string },
    // Loaded after the screen shows (zod with it), checked on submit.
    schema: lazyRules.addMemberBody,
    submit: (v) => addMember(projectId, { email: v.email, role: v.role as 'ADMIN' | 'MEMBER' }),
    onSuccess: (m) => {
      void qc.invalidateQueries({ queryKey: settingsKeys.members(projectId) });
      void qc.invalidateQueries({ queryKey: settingsKeys.invitations(projectId) });
      form.reset();
      notifySuccess(
        'invitationId' in m
          ? `${m.email} was invited as ${m.role.toLowerCase()}: they join once they accept from the mail.`
          : `${m.email} was added as ${m.role.toLowerCase()}.`,
      );
    },
  });
  return (
    <Paper p="lg">
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="sm">
          <Stack gap={2}>
            <Title order={2} size="h5">
              Add a member
            </Title>
            <Text size="sm" c="dimmed">
              A teammate with a verified account joins at once; anyone else gets an invitation by mail.
            </Text>
          </Stack>
          <Group align="flex-start" gap="sm" wrap="wrap">
            <TextInput
              label="Email"
              placeholder="teammate@example.com"
              style={{ flex: 1, minWidth: 220 }}
              key={form.key('email')}
              {...form.getInputProps('email')}
            />
            <NativeSelect
              label="Role"
              data={[
                { value: 'MEMBER', label: 'Member' },
                { value: 'ADMIN', label: 'Admin' },
              ]}
              w={150}
              key={form.key('role')}
              {...form.getInputProps('role')}
            />
            <Button type="submit" mt={25} loading={mutation.isPending} leftSection={<IconUserPlus size={16} />}>
              Add member
            </Button>
          </Group>
          <FormError error={formError} />
        </Stack>
      </form>
    </Paper>
  );
}

function RoleCell({ member, projectId, canEdit }: { member: Member; projectId: string; canEdit: boolean }) {
  const qc = useQueryClient();
  const change = useMutation({
    mutationFn: (role: Role) => changeRole(projectId, member.userId, role),
    onSuccess: (m) => {
      void qc.invalidateQueries({ queryKey: settingsKeys.members(projectId) });
      void qc.invalidateQueries({ queryKey: projectKeys.all });
      notifySuccess(`${m.email} is now ${m.role.toLowerCase()}.`);
    },
    onError: (err) => notifyError(err, `Could not change the role of ${member.email}`),
  });
  if (!canEdit)
    return (
      <Badge variant="outline" color="gray">
        {member.role.toLowerCase()}
      </Badge>
    );
  return (
    <NativeSelect
      aria-label={`Role of ${member.email}`}
      size="xs"
      w={130}
      value={member.role}
      disabled={change.isPending}
      data={[
        { value: 'OWNER', label: 'Owner' },
        { value: 'ADMIN', label: 'Admin' },
        { value: 'MEMBER', label: 'Member' },
      ]}
      onChange={(e) => e.currentTarget.value !== member.role && change.mutate(e.currentTarget.value as Role)}
    />
  );
}

/** Resend and revoke buttons of one pending invitation (OWNER, ADMIN). */
function InvitationActions({ invitation, projectId }: { invitation: Invitation; projectId: string }) {
  const qc = useQueryClient();
  const refresh = () => qc.invalidateQueries({ queryKey: settingsKeys.invitations(projectId) });
  const resend = useMutation({
    mutationFn: () => resendInvitation(projectId, invitation.invitationId),
    onSuccess: () => {
      void refresh();
      notifySuccess(`The invitation was mailed again to ${invitation.email}.`);
    },
    onError: (err) => notifyError(err, `Could not resend the invitation to ${invitation.email}`),
  });
  const revoke = useMutation({
    mutationFn: () => revokeInvitation(projectId, invitation.invitationId),
    onSuccess: () => {
      void refresh();
      notifySuccess(`The invitation to ${invitation.email} was revoked.`);
    },
    onError: (err) => notifyError(err, `Could not revoke the invitation to ${invitation.email}`),
  });
  return (
    <Group gap={4} justify="flex-end" wrap="nowrap">
      <Button size="xs" variant="subtle" loading={resend.isPending} onClick={() => resend.mutate()}>
        Resend
      </Button>
      <Button size="xs" variant="subtle" color="red" loading={revoke.isPending} onClick={() => revoke.mutate()}>
        Revoke
      </Button>
    </Group>
  );
}

/** Invitations not yet accepted: shown only when there are some. */
function PendingInvitations({ projectId, canManage }: { projectId: string; canManage: boolean }) {
  const invitations = useInvitations(projectId);
  const list = invitations.data ?? [];
  if (list.length === 0) return null;
  return (
    <Stack gap="xs">
      <Title order={2} size="h5">
        Pending invitations
      </Title>
      <DataTable
        caption="Pending invitations"
        minWidth={860}
        rows={list}
        rowKey={(i) => i.invitationId}
        rowLabel={(i) => i.email}
        columns={[
          {
            key: 'email',
            header: 'Invited address',
            render: (i) => (
              <Text size="sm" fw={500} style={{ wordBreak: 'break-all' }}>
                {i.email}
              </Text>
            ),
          },
          {
            key: 'role',
            header: 'Role',
            width: 120,
            render: (i) => (
              <Badge variant="outline" color="gray">
                {i.role.toLowerCase()}
              </Badge>
            ),
          },
          {
            key: 'status',
            header: 'Status',
            width: 120,
            render: (i) => (
              <Badge variant="light" color={i.status === 'expired' ? 'orange' : 'blue'}>
                {i.status}
              </Badge>
            ),
          },
          {
            key: 'by',
            header: 'Invited by',
            render: (i) => (
              <Text size="sm" c="dimmed">
                {i.invitedBy ?? 'a former member'}
              </Text>
            ),
          },
          {
            key: 'expires',
            header: 'Valid until',
            width: 130,
            render: (i) => <Text size="sm">{formatDate(i.expiresAt)}</Text>,
          },
          ...(canManage
            ? [
                {
                  key: 'actions',
                  header: <VisuallyHidden>Actions</VisuallyHidden>,
                  width: 170,
                  align: 'right' as const,
                  render: (i: Invitation) => <InvitationActions invitation={i} projectId={projectId} />,
                },
              ]
            : []),
        ]}
      />
    </Stack>
  );
}

/** `/p/:projectId/settings/members`: who is in the project and with which role. */
export function MembersSettings() {
  const { project, can } = useProject();
  const me = useMe();
  const members = useMembers(project.id);
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [removing, setRemoving] = useState<Member | null>(null);
  const [confirmOpen, confirm] = useDisclosure();
  const myId = me.data?.id;
  const leaving = removing?.userId === myId;
  return (
    <Stack gap="lg">
      {can.manageMembers ? (
        <InviteForm projectId={project.id} />
      ) : (
        <Text size="sm" c="dimmed" data-testid="members-readonly">
          {needsRole('owners and admins')}: adding, removing members and changing roles.
        </Text>
      )}
      <QueryState
        query={members}
        empty={
          <EmptyState icon={<IconUsers size={28} />} title="No members" description="Add teammates by email above." />
        }
      >
        {(list) => (
          <DataTable
            caption="Members of this project"
            rows={list}
            rowKey={(m) => m.userId}
            rowLabel={(m) => m.email}
            columns={[
              {
                key: 'email',
                header: 'Member',
                render: (m) => (
                  <Group gap="xs">
                    <Text size="sm" fw={500}>
                      {m.email}
                    </Text>
                    {m.userId === myId && (
                      <Badge size="xs" variant="light">
                        you
                      </Badge>
                    )}
                  </Group>
                ),
              },
              {
                key: 'role',
                header: 'Role',
                width: 170,
                render: (m) => (
                  <RoleCell
                    member={m}
                    projectId={project.id}
                    canEdit={can.manageMembers && m.userId !== myId && (m.role !== 'OWNER' || can.manageOwners)}
                  />
                ),
              },
              {
                key: 'access',
                header: 'Can',
                render: (m) => (
                  <Text size="sm" c="dimmed">
                    {ROLE_HELP[m.role]}
                  </Text>
                ),
              },
              {
                key: 'added',
                header: 'Added',
                width: 130,
                render: (m) => <Text size="sm">{formatDate(m.createdAt)}</Text>,
              },
              {
                key: 'actions',
                header: <VisuallyHidden>Actions</VisuallyHidden>,
                width: 110,
                align: 'right',
                render: (m) => {
                  const self = m.userId === myId;
                  // The last owner cannot leave (the server refuses it): no button to press in vain.
                  const lastOwner = m.role === 'OWNER' && list.filter((x) => x.role === 'OWNER').length === 1;
                  if (lastOwner) return null;
                  const allowed = self || (can.manageMembers && (m.role !== 'OWNER' || can.manageOwners));
                  if (!allowed) return null;
                  return (
                    <Button
                      size="xs"
                      variant="subtle"
                      color="red"
                      onClick={() => {
                        setRemoving(m);
                        confirm.open();
                      }}
                    >
                      {self ? 'Leave' : 'Remove'}
                    </Button>
                  );
                },
              },
            ]}
          />
        )}
      </QueryState>
      <PendingInvitations projectId={project.id} canManage={can.manageMembers} />
      <ConfirmDialog
        opened={confirmOpen}
        onClose={() => {
          confirm.close();
          setRemoving(null);
        }}
        title={leaving ? `Leave ${project.name}?` : `Remove ${removing?.email ?? ''}?`}
        confirmLabel={leaving ? 'Leave project' : 'Remove member'}
        danger
        onConfirm={async () => {
          if (!removing) return;
          await removeMember(project.id, removing.userId);
          if (leaving) {
            await navigate('/projects', { replace: true });
            void qc.invalidateQueries({ queryKey: projectKeys.all });
            notifySuccess(`You left ${project.name}.`);
          } else {
            void qc.invalidateQueries({ queryKey: settingsKeys.members(project.id) });
            notifySuccess(`${removing.email} was removed.`);
          }
        }}
      >
        <Text size="sm">
          {leaving
            ? 'You lose access to this project at once; an owner or admin can add you back.'
            : 'They lose access to this project at once. Their account stays; you can add them back later.'}
        </Text>
      </ConfirmDialog>
    </Stack>
  );
}
