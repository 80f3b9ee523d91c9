import { MantineProvider } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { QueryClientProvider } from '@tanstack/react-query';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { queryClient } from './query-client';
import { AppRoutes, BASENAME } from './router';
import { theme } from './theme';

// A data router around the declarative routes, so a screen may block leaving it (useBlocker: the
// template editor's unsaved changes); every route is still declared in AppRoutes.
const router = createBrowserRouter([{ path: '*', element: <AppRoutes /> }], { basename: BASENAME });

/** The dashboard: theme, toasts, the query cache and the routes (React Router, declared in AppRoutes). */
export function App() {
  return (
    <MantineProvider theme={theme} defaultColorScheme="light">
      <Notifications position="top-right" />
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>
  );
}
