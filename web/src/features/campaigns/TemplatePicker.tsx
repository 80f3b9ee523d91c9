import { NativeSelect } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api, inProject, unwrap } from '../../api/client';
import type { ResponseOf } from '../../api/types';
import type { Format } from '../email-editor/content';
import type { BlocksDocument } from '../email-editor/types';
import { projectKeys } from '../projects/api';

/** What a campaign copies from a template: its message, sender and type. */
export type PickedTemplate = Pick<
  ResponseOf<'/templates', 'get'>['data'][number],
  'subject' | 'body' | 'from' | 'fromName' | 'type' | 'topicId'
> & { format?: Format; blocks?: BlocksDocument | null };

/**
 * "Start from a template": the project's templates (`GET /templates`, first 100); choosing one hands
 * its subject, body, From, From name, type and topic to `onPick`. Hidden while the project has none.
 */
export function TemplatePicker({ projectId, onPick }: { projectId: string; onPick: (t: PickedTemplate) => void }) {
  const templates = useQuery({
    queryKey: [...projectKeys.one(projectId), 'templates', 'picker'],
    queryFn: () =>
      unwrap(api.GET('/templates', { params: { query: { page: 1, pageSize: 100 } }, headers: inProject(projectId) })),
  });
  const list = templates.data?.data ?? [];
  if (list.length === 0) return null;
  return (
    <NativeSelect
      label="Start from a template"
      description="Copies its subject, body, sender, type and topic into this campaign"
      value=""
      data={[{ value: '', label: 'Choose a template…' }, ...list.map((t) => ({ value: t.id, label: t.name }))]}
      onChange={(e) => {
        const t = list.find((x) => x.id === e.currentTarget.value);
        if (t)
          onPick({
            subject: t.subject,
            body: t.body,
            from: t.from,
            fromName: t.fromName,
            type: t.type,
            topicId: t.topicId,
            // Issue 38's fields, in the answer before the generated types have them.
            format: (t as PickedTemplate).format,
            blocks: (t as PickedTemplate).blocks,
          });
      }}
    />
  );
}
