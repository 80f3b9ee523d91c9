import { Tabs } from '@mantine/core';
import { Suspense } from 'react';
import { Outlet, useLocation, useNavigate } from 'react-router';
import { ContentSkeleton } from '../../components/Loading';
import { PageHeader } from '../../components/PageHeader';
import { useProject } from '../projects/ProjectContext';

const tabs = [
  { value: 'general', label: 'General' },
  { value: 'members', label: 'Members' },
  { value: 'billing', label: 'Billing and limits' },
  { value: 'sending', label: 'Sending' },
  { value: 'retention', label: 'Data retention' },
  { value: 'audit', label: 'Audit log' },
];

/** `/p/:projectId/settings/*`: the settings sections as tabs, each its own URL. */
export function SettingsLayout() {
  const { project } = useProject();
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const base = `/p/${project.id}/settings`;
  const current = (pathname.startsWith(`${base}/`) && pathname.slice(base.length + 1).split('/')[0]) || 'general';
  return (
    <>
      <PageHeader
        title="Settings"
        description="The project's name, tracking, brand colour, time zone, members, monthly sending limits, the transports mail goes out through, how long data is kept, and the log of every change."
      />
      <Tabs
        value={current}
        onChange={(v) => navigate(v && v !== 'general' ? `${base}/${v}` : base)}
        mb="lg"
        keepMounted={false}
      >
        <Tabs.List>
          {tabs.map((t) => (
            <Tabs.Tab key={t.value} value={t.value}>
              {t.label}
            </Tabs.Tab>
          ))}
        </Tabs.List>
      </Tabs>
      <Suspense fallback={<ContentSkeleton rows={3} />}>
        <Outlet />
      </Suspense>
    </>
  );
}
