import { Button, Group, Stack, Text, TextInput } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { createProjectBody } from '../../api/rules';
import type { CreatedProject } from '../../api/types';
import { FormError, useApiForm } from '../../components/forms';
import { KeysReveal } from '../keys/KeysReveal';
import { createProject, projectKeys } from './api';

/** The project-name form; `onCreated` receives the new project with its full keys. */
export function CreateProjectForm({
  onCreated,
  submitLabel = 'Create project',
}: {
  onCreated: (p: CreatedProject) => void;
  submitLabel?: string;
}) {
  const qc = useQueryClient();
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: { name: '' },
    schema: createProjectBody,
    submit: (v) => createProject(v.name),
    onSuccess: (p) => {
      void qc.invalidateQueries({ queryKey: projectKeys.all });
      onCreated(p);
    },
  });
  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack gap="md">
        <TextInput
          label="Project name"
          description="Usually the name of the app or site that sends the mail."
          placeholder="My app"
          required
          data-autofocus
          key={form.key('name')}
          {...form.getInputProps('name')}
        />
        <FormError error={formError} />
        <Group justify="flex-end">
          <Button type="submit" loading={mutation.isPending}>
            {submitLabel}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/**
 * Creating a project in two steps: its name, then its keys shown once with copy buttons; "Continue"
 * opens the new project's overview (its onboarding checklist).
 */
export function CreateProjectFlow({ onDone }: { onDone?: () => void }) {
  const [created, setCreated] = useState<CreatedProject | null>(null);
  const navigate = useNavigate();
  if (!created) return <CreateProjectForm onCreated={setCreated} />;
  return (
    <Stack gap="md">
      <Text size="sm">
        <b>{created.name}</b> is ready. These are its API keys:
      </Text>
      <KeysReveal publicKey={created.public} secretKey={created.secret} />
      <Group justify="flex-end">
        <Button
          onClick={() => {
            onDone?.();
            navigate(`/p/${created.id}`);
          }}
        >
          I have saved the keys, continue
        </Button>
      </Group>
    </Stack>
  );
}
