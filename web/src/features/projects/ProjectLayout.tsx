import { Suspense, useEffect, useMemo } from 'react';
import { Outlet, useParams } from 'react-router';
import { ErrorAlert } from '../../components/ErrorAlert';
import { ContentSkeleton } from '../../components/Loading';
import { NotFound } from '../../components/NotFound';
import { AppLayout } from '../../components/shell/AppLayout';
import { useProjects } from './api';
import { lastProject } from './lastProject';
import { permissionsFor } from './permissions';
import { ProjectContext } from './ProjectContext';
import { TwoFactorRequiredPage, usePasswordOnlySession } from './TwoFactorGate';

/**
 * `/p/:projectId/*`: the project of the URL must be one of the user's projects, else "not found" (the
 * API answers 404 for other projects too: existence is never revealed). Provides {@link useProject}.
 */
export function ProjectLayout() {
  const { projectId = '' } = useParams();
  const projects = useProjects();
  const project = projects.data?.find((p) => p.id === projectId);
  const passwordOnly = usePasswordOnlySession();
  const value = useMemo(() => (project ? { project, can: permissionsFor(project.role) } : null), [project]);
  useEffect(() => {
    if (project) lastProject.set(project.id);
  }, [project]);

  if (projects.isPending)
    return (
      <AppLayout>
        <ContentSkeleton rows={4} />
      </AppLayout>
    );
  if (projects.isError)
    return (
      <AppLayout>
        <ErrorAlert error={projects.error} onRetry={() => void projects.refetch()} />
      </AppLayout>
    );
  if (!value) {
    return (
      <AppLayout>
        <NotFound
          title="Project not found"
          description="No project of yours has this address. It may have been deleted, or you are not a member of it."
        />
      </AppLayout>
    );
  }
  // A project that requires two-factor sign-in answers a password-only session 403 on every call:
  // wait for the session's method, then show only the page that asks to set it up.
  if (value.project.require2fa && passwordOnly !== false)
    return (
      <AppLayout>
        {passwordOnly === undefined ? <ContentSkeleton rows={4} /> : <TwoFactorRequiredPage project={value.project} />}
      </AppLayout>
    );
  return (
    <ProjectContext.Provider value={value}>
      <AppLayout projectId={projectId}>
        {/* Keyed by project: switching projects starts every screen afresh (forms, dialogs). */}
        <Suspense fallback={<ContentSkeleton rows={4} />}>
          <Outlet key={projectId} />
        </Suspense>
      </AppLayout>
    </ProjectContext.Provider>
  );
}
