import { Alert, Button, Code, Group, Paper, Progress, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconCircleCheckFilled, IconCircleDashed, IconConfetti } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import type { SetupState } from '../../api/types';
import { PageHeader } from '../../components/PageHeader';
import { StatusBadge } from '../../components/StatusBadge';
import { QueryState } from '../../components/QueryState';
import { OverviewFigures } from '../analytics/OverviewFigures';
import { useProjectSecurity, useSetupState } from './api';
import { useProject } from './ProjectContext';

interface Step {
  id: string;
  title: string;
  done: boolean;
  description: ReactNode;
  action?: ReactNode;
}

function steps(s: SetupState, base: string, domain: string | undefined): Step[] {
  const origin = window.location.origin;
  const from = `hello@${domain ?? 'your-domain.com'}`;
  return [
    {
      id: 'domain',
      title: 'Add your sending domain',
      done: s.hasDomain,
      description:
        'The domain your mail comes from, such as example.com. Pigeon makes its DKIM key and tells you which DNS records to publish.',
      action: (
        <Button component={Link} to={`${base}/domains`} size="xs" variant={s.hasDomain ? 'default' : 'filled'}>
          Add a domain
        </Button>
      ),
    },
    {
      id: 'verify',
      title: 'Publish the DNS records and verify the domain',
      done: s.hasVerifiedDomain,
      description:
        'Copy the records into your DNS provider, then press "Verify now". Pigeon also re-checks pending domains every 5 minutes.',
      action: (
        <Button component={Link} to={`${base}/domains`} size="xs" variant="default">
          Open domains
        </Button>
      ),
    },
    {
      id: 'email',
      title: 'Send your first email',
      done: s.hasSentEmail,
      description: (
        <Stack gap={6}>
          <Text size="sm">Call the API from your app with the project&apos;s secret key:</Text>
          <Code block className="break-all">
            {`curl -X POST ${origin}/v1/send \\\n  -H "Authorization: Bearer $PIGEON_SECRET_KEY" \\\n  -H "Content-Type: application/json" \\\n  -d '{"to":"you@example.org","from":"${from}","subject":"Hello","body":"<p>It works.</p>"}'`}
          </Code>
        </Stack>
      ),
      action: (
        <Button component={Link} to={`${base}/keys`} size="xs" variant="default">
          API keys
        </Button>
      ),
    },
    {
      id: 'event',
      title: 'Track your first event',
      done: s.hasTrackedEvent,
      description: (
        <Stack gap={6}>
          <Text size="sm">
            Events (a signup, a purchase) drive workflows and segments. Send one with the public key:
          </Text>
          <Code block className="break-all">
            {`curl -X POST ${origin}/v1/track \\\n  -H "Authorization: Bearer $PIGEON_PUBLIC_KEY" \\\n  -H "Content-Type: application/json" \\\n  -d '{"event":"signed-up","email":"you@example.org"}'`}
          </Code>
        </Stack>
      ),
    },
  ];
}

function Checklist({ state, base, domain }: { state: SetupState; base: string; domain?: string }) {
  const list = steps(state, base, domain);
  const done = list.filter((s) => s.done).length;
  const next = list.find((s) => !s.done);
  return (
    <Paper p="lg" data-testid="onboarding">
      <Stack gap="lg">
        <Group justify="space-between" align="flex-end">
          <Stack gap={2}>
            <Title order={2} size="h4">
              Get to your first delivered email
            </Title>
            <Text size="sm" c="dimmed">
              {done} of {list.length} steps done
            </Text>
          </Stack>
          {state.completed && (
            <StatusBadge tone="success" size="lg">
              Ready to send
            </StatusBadge>
          )}
        </Group>
        <Progress
          value={(done / list.length) * 100}
          color="teal"
          aria-label={`${done} of ${list.length} onboarding steps done`}
        />
        {state.completed && (
          <Alert color="teal" variant="light" icon={<IconConfetti size={18} />}>
            Your domain is verified and mail is flowing. Next: import contacts and write templates.
          </Alert>
        )}
        <Stack gap={0}>
          {list.map((step, i) => (
            <Group
              key={step.id}
              align="flex-start"
              wrap="nowrap"
              gap="md"
              py="md"
              data-step={step.id}
              data-done={step.done}
              style={i > 0 ? { borderTop: '1px solid var(--mantine-color-default-border)' } : undefined}
            >
              <ThemeIcon variant="transparent" color={step.done ? 'teal' : 'gray'} size={28} aria-hidden>
                {step.done ? <IconCircleCheckFilled size={24} /> : <IconCircleDashed size={24} />}
              </ThemeIcon>
              <Stack gap={6} style={{ flex: 1, minWidth: 0 }}>
                <Group gap="xs">
                  <Text fw={600} td={step.done ? 'line-through' : undefined} c={step.done ? 'dimmed' : undefined}>
                    {step.title}
                  </Text>
                  <Text size="xs" c={step.done ? 'teal.9' : 'dimmed'}>
                    {step.done ? 'Done' : step === next ? 'Next step' : 'To do'}
                  </Text>
                </Group>
                {!step.done &&
                  (typeof step.description === 'string' ? (
                    <Text size="sm" c="dimmed">
                      {step.description}
                    </Text>
                  ) : (
                    step.description
                  ))}
                {!step.done && step.action && <Group>{step.action}</Group>}
              </Stack>
            </Group>
          ))}
        </Stack>
      </Stack>
    </Paper>
  );
}

/** Every step of the checklist is done: the overview shows figures alone. */
const finished = (s: SetupState) => s.hasDomain && s.hasVerifiedDomain && s.hasSentEmail && s.hasTrackedEvent;

/**
 * `/p/:projectId`: the project's start page. Once a first email went out, the mail and audience
 * figures; the onboarding checklist under them until every step is done.
 */
export function OverviewPage() {
  const { project } = useProject();
  const state = useSetupState(project.id);
  const security = useProjectSecurity(project.id);
  return (
    <>
      <PageHeader
        title={project.name}
        description={
          state.data && finished(state.data)
            ? 'How this project is doing: its mail and its audience.'
            : 'Overview of this project: what is set up and what to do next.'
        }
      />
      <QueryState query={state} skeletonRows={4}>
        {(s) => (
          <Stack gap="xl">
            {s.hasSentEmail && <OverviewFigures projectId={project.id} />}
            {!finished(s) && (
              <Checklist state={s} base={`/p/${project.id}`} domain={security.data?.verifiedDomains[0]} />
            )}
          </Stack>
        )}
      </QueryState>
    </>
  );
}
