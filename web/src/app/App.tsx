import { localStorageColorSchemeManager, MantineProvider } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { QueryClientProvider } from '@tanstack/react-query';
import { unstable_HistoryRouter as HistoryRouter } from 'react-router';
import { history } from '../lib/guarded-history';
import { queryClient } from './query-client';
import { AppRoutes, BASENAME } from './router';
import { COLOR_SCHEME_KEY, theme } from './theme';

// The user's choice (light, dark or auto = the system's) survives reloads; auto is the first default.
const colorSchemeManager = localStorageColorSchemeManager({ key: COLOR_SCHEME_KEY });

/** The dashboard: theme (light, dark or the system's), toasts, the query cache and the routes (declared in AppRoutes). */
export function App() {
  return (
    <MantineProvider theme={theme} defaultColorScheme="auto" colorSchemeManager={colorSchemeManager}>
      <Notifications position="top-right" />
      <QueryClientProvider client={queryClient}>
        {/* Our own history, so a screen may hold a move away (the template editor's unsaved changes)
            without a data router's weight: lib/guarded-history.ts. */}
        <HistoryRouter history={history} basename={BASENAME}>
          <AppRoutes />
        </HistoryRouter>
      </QueryClientProvider>
    </MantineProvider>
  );
}
