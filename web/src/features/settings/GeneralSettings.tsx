import {
  Button,
  ColorInput,
  Fieldset,
  Group,
  Paper,
  Radio,
  Select,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import type { ProjectSummary, TrackingMode } from '../../api/types';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { lazyRules } from '../../api/lazy-rules';
import { FormError, useApiForm } from '../../components/forms';
import { notifySuccess } from '../../components/notify';
import { deleteProject, projectKeys, resetProject, updateProject } from '../projects/api';
import { needsRole } from '../projects/permissions';
import { useProject } from '../projects/ProjectContext';
import { TwoFactorRequirement } from './TwoFactorRequirement';

const TRACKING: { value: TrackingMode; label: string; description: string }[] = [
  {
    value: 'ENABLED',
    label: 'Track every email',
    description: 'Opens (a pixel) and clicks (rewritten links) of all mail.',
  },
  {
    value: 'MARKETING_ONLY',
    label: 'Marketing email only',
    description: 'Campaigns and marketing templates are tracked; transactional mail is sent untouched.',
  },
  {
    value: 'DISABLED',
    label: 'No tracking',
    description: 'No pixel, links left as written. Open and click statistics stay empty.',
  },
];

function RenameForm() {
  const { project, can } = useProject();
  const qc = useQueryClient();
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: { name: project.name },
    // Loaded after the screen shows (zod with it), checked on submit.
    schema: lazyRules.projectName,
    submit: (v) => updateProject(project.id, { name: v.name }),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: projectKeys.all });
      notifySuccess('Project renamed.');
    },
  });
  return (
    <form onSubmit={onSubmit} noValidate>
      <Fieldset legend="Name" disabled={!can.editProject} variant="unstyled">
        <Stack gap="sm">
          <Group align="flex-start" gap="sm" wrap="nowrap">
            <TextInput
              aria-label="Project name"
              style={{ flex: 1 }}
              key={form.key('name')}
              {...form.getInputProps('name')}
            />
            <Button type="submit" loading={mutation.isPending}>
              Rename
            </Button>
          </Group>
          {!can.editProject && (
            <Text size="sm" c="dimmed">
              {needsRole('owners and admins')}.
            </Text>
          )}
          <FormError error={formError} />
        </Stack>
      </Fieldset>
    </form>
  );
}

function TrackingForm() {
  const { project, can } = useProject();
  const qc = useQueryClient();
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: { tracking: project.tracking as string },
    submit: (v) => updateProject(project.id, { tracking: v.tracking as TrackingMode }),
    onSuccess: (_saved, values) => {
      form.resetDirty(values);
      void qc.invalidateQueries({ queryKey: projectKeys.all });
      notifySuccess('Tracking mode saved.');
    },
  });
  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack gap="sm">
        <Radio.Group label="Open and click tracking" key={form.key('tracking')} {...form.getInputProps('tracking')}>
          <Stack gap="sm" mt="xs">
            {TRACKING.map((t) => (
              <Radio
                key={t.value}
                value={t.value}
                label={t.label}
                description={t.description}
                disabled={!can.editProject}
              />
            ))}
          </Stack>
        </Radio.Group>
        <SaveRow
          label="Save tracking mode"
          error={formError}
          pending={mutation.isPending}
          disabled={!can.editProject || !form.isDirty()}
        />
      </Stack>
    </form>
  );
}

/** A settings form's end: its error, then its save button (only once something changed). */
function SaveRow({
  label,
  error,
  pending,
  disabled,
}: {
  label: string;
  error: unknown;
  pending: boolean;
  disabled: boolean;
}) {
  return (
    <>
      <FormError error={error} />
      <Group>
        <Button type="submit" variant="default" loading={pending} disabled={disabled}>
          {label}
        </Button>
      </Group>
    </>
  );
}

const BRAND_SWATCHES = ['#1f4fd1', '#0b7285', '#2b8a3e', '#e8590c', '#c2255c', '#6741d9', '#1f2328'];

/** The accent of the pages readers see without a login: preference centre, unsubscribe pages, hosted forms. */
function BrandForm() {
  const { project, can } = useProject();
  const qc = useQueryClient();
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: { brandColor: project.brandColor ?? '' },
    submit: (v) => updateProject(project.id, { brandColor: v.brandColor.trim() ? v.brandColor.trim() : null }),
    onSuccess: (_saved, values) => {
      form.resetDirty(values);
      void qc.invalidateQueries({ queryKey: projectKeys.all });
      notifySuccess(values.brandColor.trim() ? 'Brand colour saved.' : 'Brand colour reset to the default.');
    },
  });
  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack gap="sm">
        <ColorInput
          label="Brand colour"
          description="Buttons and links of the pages your readers see: preference centre, unsubscribe pages, hosted forms. Empty for the default blue; text on it stays readable whatever you pick."
          placeholder="#1f4fd1"
          format="hex"
          swatches={BRAND_SWATCHES}
          eyeDropperButtonProps={{ 'aria-label': 'Pick a colour from the screen' }}
          disabled={!can.editProject}
          maw={520}
          key={form.key('brandColor')}
          {...form.getInputProps('brandColor')}
        />
        <SaveRow
          label="Save brand colour"
          error={formError}
          pending={mutation.isPending}
          disabled={!can.editProject || !form.isDirty()}
        />
      </Stack>
    </form>
  );
}

/** Every IANA zone this browser knows (Intl), UTC first: the server checks the name with Intl too. */
const TIME_ZONES = ['UTC', ...Intl.supportedValuesOf('timeZone').filter((z) => z !== 'UTC')];

/** The zone workflow schedules read their cron in (`PATCH /users/@me/projects/:id {timeZone}`). */
function TimeZoneForm() {
  const { project, can } = useProject();
  const qc = useQueryClient();
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: { timeZone: project.timeZone },
    submit: (v) => updateProject(project.id, { timeZone: v.timeZone }),
    onSuccess: (_saved, values) => {
      form.resetDirty(values);
      void qc.invalidateQueries({ queryKey: projectKeys.all });
      notifySuccess(`Time zone set to ${values.timeZone}.`);
    },
  });
  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack gap="sm">
        <Select
          label="Time zone"
          description="Workflow schedules run in this zone: 0 9 * * 1 is Mondays at 09:00 here, summer time included."
          data={TIME_ZONES.includes(project.timeZone) ? TIME_ZONES : [project.timeZone, ...TIME_ZONES]}
          searchable
          allowDeselect={false}
          limit={200}
          disabled={!can.editProject}
          maw={520}
          key={form.key('timeZone')}
          {...form.getInputProps('timeZone')}
        />
        <SaveRow
          label="Save time zone"
          error={formError}
          pending={mutation.isPending}
          disabled={!can.editProject || !form.isDirty()}
        />
      </Stack>
    </form>
  );
}

function DangerZone() {
  const { project, can } = useProject();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [resetting, reset] = useDisclosure();
  const [deleting, del] = useDisclosure();
  return (
    <Paper p="lg" style={{ borderColor: 'var(--mantine-color-red-4)' }}>
      <Stack gap="md">
        <Title order={2} size="h4" c="red.8">
          Danger zone
        </Title>
        {!can.ownerOnly && (
          <Text size="sm" c="dimmed">
            {needsRole('owners')}: resetting or deleting the project.
          </Text>
        )}
        <Group justify="space-between" wrap="nowrap" gap="md">
          <Stack gap={2}>
            <Text fw={500}>Reset project</Text>
            <Text size="sm" c="dimmed">
              Deletes all contacts, events, emails, templates, campaigns, segments and workflows. Keeps members, keys
              and domains.
            </Text>
          </Stack>
          <Button color="red" variant="outline" onClick={reset.open} disabled={!can.ownerOnly}>
            Reset…
          </Button>
        </Group>
        <Group justify="space-between" wrap="nowrap" gap="md">
          <Stack gap={2}>
            <Text fw={500}>Delete project</Text>
            <Text size="sm" c="dimmed">
              Deletes the project with everything in it; its API keys stop working at once.
            </Text>
          </Stack>
          <Button color="red" onClick={del.open} disabled={!can.ownerOnly}>
            Delete…
          </Button>
        </Group>
      </Stack>
      <ConfirmDialog
        opened={resetting}
        onClose={reset.close}
        title={`Reset ${project.name}?`}
        confirmLabel="Reset project"
        danger
        requireText={project.name}
        onConfirm={async () => {
          await resetProject(project.id);
          await qc.invalidateQueries({ queryKey: projectKeys.one(project.id) });
          notifySuccess(`${project.name} was reset.`);
        }}
      >
        <Text size="sm">
          This <b>cannot be undone</b>: every contact, event, email, template, campaign, segment and workflow of this
          project is deleted. Members, API keys and domains stay.
        </Text>
      </ConfirmDialog>
      <ConfirmDialog
        opened={deleting}
        onClose={del.close}
        title={`Delete ${project.name}?`}
        confirmLabel="Delete project"
        danger
        requireText={project.name}
        onConfirm={async () => {
          await deleteProject(project.id);
          await navigate('/projects', { replace: true });
          qc.setQueryData<ProjectSummary[]>(projectKeys.all, (list) => list?.filter((p) => p.id !== project.id));
          void qc.invalidateQueries({ queryKey: projectKeys.all });
          notifySuccess(`${project.name} was deleted.`);
        }}
      >
        <Text size="sm">
          This <b>cannot be undone</b>: the project, its data, its domains and its members are deleted, and its API keys
          stop working immediately.
        </Text>
      </ConfirmDialog>
    </Paper>
  );
}

/** `/p/:projectId/settings`: name, tracking mode, brand colour, time zone, two-factor requirement, reset and delete. */
export function GeneralSettings() {
  return (
    <Stack gap="lg">
      <Paper p="lg">
        <RenameForm />
      </Paper>
      <Paper p="lg">
        <TrackingForm />
      </Paper>
      <Paper p="lg">
        <BrandForm />
      </Paper>
      <Paper p="lg">
        <TimeZoneForm />
      </Paper>
      <Paper p="lg">
        <TwoFactorRequirement />
      </Paper>
      <DangerZone />
    </Stack>
  );
}
