import { Anchor, List, Stack, Text } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { ApiError } from '../../api/errors';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { notifySuccess } from '../../components/notify';
import { StatusBadge } from '../../components/StatusBadge';
import { deleteTemplate, templateKeys, useTemplateUsage, type Template } from './api';

interface DeleteTemplateDialogProps {
  projectId: string;
  template: Pick<Template, 'id' | 'name'> | null;
  onClose: () => void;
  onDeleted?: () => void;
}

/**
 * Confirms deleting a template. Lists the workflow steps that send it (`GET /templates/:id/usage`):
 * the server refuses (409) while one of them belongs to an enabled workflow, and the dialog then shows
 * its message with that list, so the person knows which workflows to change first.
 */
export function DeleteTemplateDialog({ projectId, template, onClose, onDeleted }: DeleteTemplateDialogProps) {
  const qc = useQueryClient();
  const usage = useTemplateUsage(projectId, template?.id ?? '', Boolean(template));
  const steps = usage.data?.workflows ?? [];
  return (
    <ConfirmDialog
      opened={Boolean(template)}
      onClose={onClose}
      title={`Delete ${template?.name ?? 'template'}?`}
      confirmLabel="Delete template"
      danger
      onConfirm={async () => {
        try {
          await deleteTemplate(projectId, template!.id);
        } catch (err) {
          // In use: refresh the list of steps so it names what blocks the delete right now.
          if (err instanceof ApiError && err.status === 409) void usage.refetch();
          throw err;
        }
        qc.removeQueries({ queryKey: templateKeys.one(projectId, template!.id) });
        await qc.invalidateQueries({ queryKey: templateKeys.all(projectId) });
        notifySuccess(`${template!.name} was deleted.`);
        onDeleted?.();
      }}
    >
      <Stack gap="xs">
        <Text size="sm">The template is deleted for good. Emails already sent with it are kept.</Text>
        {steps.length > 0 && (
          <div data-testid="template-usage">
            <Text size="sm" fw={500}>
              Workflow steps that send it (an enabled workflow blocks the delete):
            </Text>
            <List size="sm" spacing={4} mt={4}>
              {steps.map((s) => (
                <List.Item key={s.stepId}>
                  <Anchor component={Link} to={`/p/${projectId}/workflows`} size="sm">
                    {s.name}
                  </Anchor>
                  , step “{s.stepName}”{' '}
                  <StatusBadge tone={s.enabled ? 'warning' : 'neutral'} size="xs">
                    {s.enabled ? 'enabled' : 'disabled'}
                  </StatusBadge>
                </List.Item>
              ))}
            </List>
          </div>
        )}
      </Stack>
    </ConfirmDialog>
  );
}
