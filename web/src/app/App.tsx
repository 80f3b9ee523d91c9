import { localStorageColorSchemeManager, MantineProvider } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { QueryClientProvider } from '@tanstack/react-query';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { queryClient } from './query-client';
import { AppRoutes, BASENAME } from './router';
import { COLOR_SCHEME_KEY, theme } from './theme';

// A data router around the declarative routes, so a screen may block leaving it (useBlocker: the
// template editor's unsaved changes); every route is still declared in AppRoutes.
const router = createBrowserRouter([{ path: '*', element: <AppRoutes /> }], { basename: BASENAME });

// The user's choice (light, dark or auto = the system's) survives reloads; auto is the first default.
const colorSchemeManager = localStorageColorSchemeManager({ key: COLOR_SCHEME_KEY });

/** The dashboard: theme (light, dark or the system's), toasts, the query cache and the routes (declared in AppRoutes). */
export function App() {
  return (
    <MantineProvider theme={theme} defaultColorScheme="auto" colorSchemeManager={colorSchemeManager}>
      <Notifications position="top-right" />
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>
  );
}
