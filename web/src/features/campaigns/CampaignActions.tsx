import { Button, Group, Modal, NativeSelect, SegmentedControl, Stack, Text, TextInput } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { IconCalendar, IconCopy, IconEdit, IconFlask, IconPlayerStop, IconSend, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ErrorAlert } from '../../components/ErrorAlert';
import { notifyError, notifySuccess } from '../../components/notify';
import {
  campaignKeys,
  cancelCampaign,
  deleteCampaign,
  duplicateCampaign,
  sendCampaign,
  sendTestCampaign,
  useAudienceCount,
  type Campaign,
} from './api';
import { languageName } from '../email-editor/translations';
import { experimentSendWords } from './experimentWords';
import { inLocalZone } from './status';

const ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;
const pad = (n: number) => String(n).padStart(2, '0');
/** A Date as the value of a `datetime-local` input, in the person's zone. */
const toLocalInput = (d: Date) =>
  `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;

/** "Send a test": one "[TEST]" copy to an address, not counted in the report. */
function TestModal({ projectId, campaign, onClose }: { projectId: string; campaign: Campaign; onClose: () => void }) {
  const [email, setEmail] = useState('');
  const variants = campaign.variants ?? [];
  const [variant, setVariant] = useState(variants[0]?.key ?? '');
  const languages = Object.keys(campaign.translations ?? {});
  const [locale, setLocale] = useState('');
  const send = useMutation({
    mutationFn: () => sendTestCampaign(projectId, campaign.id, email.trim(), variant || undefined, locale || undefined),
    onSuccess: () => {
      notifySuccess(
        variant
          ? `Test of variant ${variant} sent to ${email.trim()}.`
          : locale
            ? `Test of the ${languageName(locale)} version sent to ${email.trim()}.`
            : `Test sent to ${email.trim()}.`,
      );
      onClose();
    },
  });
  return (
    <Modal opened onClose={onClose} title="Send a test">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (email.trim()) send.mutate();
        }}
      >
        <Stack>
          <TextInput
            label="Send to"
            type="email"
            required
            data-autofocus
            value={email}
            onChange={(e) => setEmail(e.currentTarget.value)}
            description='The subject starts with "[TEST]"; it does not count in the report.'
          />
          {variants.length > 1 && (
            <Stack gap={4}>
              <Text size="sm" fw={500} id="test-variant-label">
                Variant
              </Text>
              <SegmentedControl
                aria-labelledby="test-variant-label"
                value={variant}
                onChange={setVariant}
                data={variants.map((v) => ({ value: v.key, label: v.key }))}
              />
              <Text size="xs" c="dimmed">
                The test carries this variant&rsquo;s subject, body and sender.
              </Text>
            </Stack>
          )}
          {languages.length > 0 && (
            <NativeSelect
              label="Language"
              description="The test carries this translation's subject, body and sender name."
              value={locale}
              onChange={(e) => setLocale(e.currentTarget.value)}
              data={[
                { value: '', label: 'Default content' },
                ...languages.map((t) => ({ value: t, label: `${languageName(t)} (${t})` })),
              ]}
            />
          )}
          {send.isError && <ErrorAlert error={send.error} />}
          <Group justify="flex-end">
            <Button type="submit" loading={send.isPending}>
              Send test
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** Schedule or reschedule: a date-time in the person's zone, sent to the server as UTC. */
function ScheduleModal({
  projectId,
  campaign,
  onClose,
}: {
  projectId: string;
  campaign: Campaign;
  onClose: () => void;
}) {
  const qc = useQueryClient();
  // The initial value is read once, when the modal opens: an hour from then unless already scheduled.
  const [when, setWhen] = useState(() =>
    toLocalInput(campaign.scheduledFor ? new Date(campaign.scheduledFor) : new Date(Date.now() + 60 * 60_000)),
  );
  const [error, setError] = useState<string | null>(null);
  const schedule = useMutation({
    mutationFn: (iso: string) => sendCampaign(projectId, campaign.id, iso),
    onSuccess: (r) => {
      void qc.invalidateQueries({ queryKey: campaignKeys.all(projectId) });
      notifySuccess(r.data.scheduledFor ? `Scheduled for ${inLocalZone(r.data.scheduledFor)}.` : r.message);
      onClose();
    },
  });
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    const d = new Date(when);
    if (Number.isNaN(d.getTime())) return setError('Pick a date and time');
    if (d.getTime() <= Date.now()) return setError('Pick a time in the future, or use "Send now"');
    setError(null);
    schedule.mutate(d.toISOString());
  };
  return (
    <Modal opened onClose={onClose} title={campaign.status === 'SCHEDULED' ? 'Reschedule' : 'Schedule'}>
      <form onSubmit={submit} noValidate>
        <Stack>
          <TextInput
            label="Send at"
            type="datetime-local"
            required
            data-autofocus
            value={when}
            error={error}
            onChange={(e) => setWhen(e.currentTarget.value)}
            description={`In your time zone (${ZONE}); stored as UTC.`}
          />
          {schedule.isError && <ErrorAlert error={schedule.error} />}
          <Group justify="flex-end">
            <Button type="submit" loading={schedule.isPending}>
              Schedule
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/**
 * What can be done with a campaign in its status: edit, test, schedule / reschedule, send now,
 * cancel (saying what stops and what was already handed over), duplicate and delete.
 */
export function CampaignActions({
  projectId,
  campaign,
  handedOver,
}: {
  projectId: string;
  campaign: Campaign;
  handedOver: number;
}) {
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [testing, test] = useDisclosure();
  const [scheduling, sched] = useDisclosure();
  const [sendingNow, now] = useDisclosure();
  const [cancelling, cancel] = useDisclosure();
  const [deleting, del] = useDisclosure();
  const s = campaign.status;
  const open = s === 'DRAFT' || s === 'SCHEDULED';
  const count = useAudienceCount(
    projectId,
    sendingNow
      ? {
          type: campaign.type,
          audienceType: campaign.audienceType,
          segmentId: campaign.segmentId,
          ...(campaign.audienceCondition ? { audienceCondition: campaign.audienceCondition } : {}),
        }
      : null,
  );
  const refresh = () => void qc.invalidateQueries({ queryKey: campaignKeys.all(projectId) });
  const duplicate = useMutation({
    mutationFn: () => duplicateCampaign(projectId, campaign.id),
    onSuccess: (c) => {
      refresh();
      void navigate(`/p/${projectId}/campaigns/${c.id}`);
    },
    onError: (e) => notifyError(e, 'Could not duplicate'),
  });
  return (
    <Group gap="xs">
      {open && (
        <Button variant="default" component={Link} to="edit" leftSection={<IconEdit size={16} />}>
          Edit
        </Button>
      )}
      {open && (
        <Button variant="default" leftSection={<IconFlask size={16} />} onClick={test.open}>
          Send test
        </Button>
      )}
      {open && (
        <Button variant="default" leftSection={<IconCalendar size={16} />} onClick={sched.open}>
          {s === 'SCHEDULED' ? 'Reschedule' : 'Schedule'}
        </Button>
      )}
      {open && (
        <Button leftSection={<IconSend size={16} />} onClick={now.open}>
          Send now
        </Button>
      )}
      {(s === 'SCHEDULED' || s === 'SENDING') && (
        <Button color="red" variant="light" leftSection={<IconPlayerStop size={16} />} onClick={cancel.open}>
          Cancel campaign
        </Button>
      )}
      {(s === 'SENT' || s === 'CANCELLED') && (
        <Button
          variant="default"
          leftSection={<IconCopy size={16} />}
          loading={duplicate.isPending}
          onClick={() => duplicate.mutate()}
        >
          Duplicate
        </Button>
      )}
      {s !== 'SENDING' && (
        <Button variant="subtle" color="red" leftSection={<IconTrash size={16} />} onClick={del.open}>
          Delete
        </Button>
      )}
      {testing && <TestModal projectId={projectId} campaign={campaign} onClose={test.close} />}
      {scheduling && <ScheduleModal projectId={projectId} campaign={campaign} onClose={sched.close} />}
      <ConfirmDialog
        opened={sendingNow}
        onClose={now.close}
        title={`Send ${campaign.name} now?`}
        confirmLabel="Send now"
        onConfirm={async () => {
          const r = await sendCampaign(projectId, campaign.id);
          refresh();
          notifySuccess(r.message);
        }}
      >
        <Text size="sm">
          {count.data
            ? campaign.experiment
              ? `${count.data.count.toLocaleString()} eligible ${count.data.count === 1 ? 'recipient' : 'recipients'}.`
              : `${count.data.count.toLocaleString()} eligible ${count.data.count === 1 ? 'recipient receives' : 'recipients receive'} it now.`
            : 'Counting the eligible recipients…'}
          {campaign.experiment && ` ${experimentSendWords(campaign.experiment)}`}
          {s === 'SCHEDULED' && ' The schedule is dropped.'}
        </Text>
      </ConfirmDialog>
      <ConfirmDialog
        opened={cancelling}
        onClose={cancel.close}
        title={`Cancel ${campaign.name}?`}
        confirmLabel="Cancel campaign"
        dismissLabel="Keep it"
        danger
        onConfirm={async () => {
          await cancelCampaign(projectId, campaign.id);
          refresh();
          notifySuccess('Campaign cancelled.');
        }}
      >
        {s === 'SCHEDULED' ? (
          <Text size="sm">The scheduled send does not happen; nothing has been sent yet.</Text>
        ) : (
          <Text size="sm">
            Sending stops: emails not yet handed to the mail server are not sent. The {handedOver.toLocaleString()}{' '}
            already handed over stay sent and cannot be recalled.
          </Text>
        )}
      </ConfirmDialog>
      <ConfirmDialog
        opened={deleting}
        onClose={del.close}
        title={`Delete ${campaign.name}?`}
        confirmLabel="Delete campaign"
        danger
        onConfirm={async () => {
          await deleteCampaign(projectId, campaign.id);
          refresh();
          notifySuccess('Campaign deleted.');
          void navigate(`/p/${projectId}/campaigns`);
        }}
      >
        <Text size="sm">The campaign and its report go. Emails already sent stay in your contacts' activity.</Text>
      </ConfirmDialog>
    </Group>
  );
}
