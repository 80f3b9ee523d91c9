import { Navigate } from 'react-router';
import { ErrorAlert } from '../../components/ErrorAlert';
import { FullPageLoader } from '../../components/Loading';
import { useProjects } from './api';
import { lastProject } from './lastProject';

/** `/`: the last opened project, else the first one, else the welcome page that creates one. */
export function HomeRedirect() {
  const projects = useProjects();
  if (projects.isPending) return <FullPageLoader />;
  if (projects.isError) return <ErrorAlert error={projects.error} onRetry={() => void projects.refetch()} />;
  const list = projects.data;
  if (list.length === 0) return <Navigate to="/welcome" replace />;
  const last = lastProject.get();
  const target = list.find((p) => p.id === last) ?? list[0];
  return <Navigate to={`/p/${target.id}`} replace />;
}
