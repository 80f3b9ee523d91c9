import { Center } from '@mantine/core';
import { Navigate, Outlet, useLocation } from 'react-router';
import { ApiError } from '../../api/errors';
import { ErrorAlert } from '../../components/ErrorAlert';
import { FullPageLoader } from '../../components/Loading';
import { useMe } from './api';
import { loginPath } from './paths';

/**
 * Guards every signed-in route: without a session, goes to the login page keeping the intended URL
 * (path, query and hash) so the person lands back where they were headed.
 */
export function RequireAuth() {
  const me = useMe();
  const location = useLocation();
  if (me.isPending) return <FullPageLoader />;
  if (me.isError) {
    if (me.error instanceof ApiError && me.error.isUnauthenticated) {
      return <Navigate to={loginPath(location.pathname + location.search + location.hash)} replace />;
    }
    return (
      <Center h="100vh" p="md">
        <ErrorAlert error={me.error} onRetry={() => void me.refetch()} />
      </Center>
    );
  }
  return <Outlet />;
}
