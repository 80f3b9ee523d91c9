import { Button, Group, Modal, SegmentedControl, Stack, Switch, Text, TextInput, Textarea } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { FormError, useApiForm } from '../../components/forms';
import { notifySuccess } from '../../components/notify';
import { createTopic, topicKeys, updateTopic, type Topic, type TopicValues } from './api';

const rules = z.object({
  name: z.string().trim().min(1, 'Give the topic a name your readers will recognise.').max(100),
  description: z.string().max(500, 'Keep the description under 500 characters.'),
  default: z.enum(['opt-in', 'opt-out']),
  public: z.boolean(),
});

const DEFAULTS = [
  { value: 'opt-out', label: 'Everyone, until they leave' },
  { value: 'opt-in', label: 'Only those who join' },
];

/** Creates a topic, or edits `topic` when given (`POST /topics`, `PATCH /topics/:id`). */
export function TopicModal({
  projectId,
  topic,
  opened,
  onClose,
}: {
  projectId: string;
  topic: Topic | null;
  opened: boolean;
  onClose: () => void;
}) {
  const qc = useQueryClient();
  const initialValues: TopicValues = {
    name: topic?.name ?? '',
    description: topic?.description ?? '',
    default: topic?.default ?? 'opt-out',
    public: topic?.public ?? true,
  };
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues,
    schema: rules,
    submit: (v) => (topic ? updateTopic(projectId, topic.id, v) : createTopic(projectId, v)),
    onSuccess: (t) => {
      void qc.invalidateQueries({ queryKey: topicKeys.all(projectId) });
      notifySuccess(topic ? `Topic “${t.name}” saved.` : `Topic “${t.name}” created.`);
      close();
    },
  });
  const close = () => {
    form.reset();
    mutation.reset();
    onClose();
  };
  return (
    <Modal opened={opened} onClose={close} title={<Text fw={600}>{topic ? 'Edit topic' : 'New topic'}</Text>} centered>
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="md">
          <TextInput
            label="Name"
            placeholder="Product news"
            required
            data-autofocus
            key={form.key('name')}
            {...form.getInputProps('name')}
          />
          <Textarea
            label="Description"
            description="Shown to your readers next to the topic's switch."
            autosize
            minRows={2}
            key={form.key('description')}
            {...form.getInputProps('description')}
          />
          <Stack gap={4}>
            <Text size="sm" fw={500} id="topic-default-label">
              Who is in it
            </Text>
            <SegmentedControl
              aria-labelledby="topic-default-label"
              data={DEFAULTS}
              key={form.key('default')}
              {...form.getInputProps('default')}
            />
            <Text size="xs" c="dimmed">
              {form.getValues().default === 'opt-out'
                ? 'Every subscribed contact gets this topic’s mail unless they leave it.'
                : 'Only contacts who join the topic get its mail.'}
            </Text>
          </Stack>
          <Switch
            label="Show on the preference page"
            key={form.key('public')}
            {...form.getInputProps('public', { type: 'checkbox' })}
          />
          <FormError error={formError} />
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={mutation.isPending}>
              {topic ? 'Save' : 'Create topic'}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
