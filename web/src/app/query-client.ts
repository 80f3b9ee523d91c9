import { QueryClient } from '@tanstack/react-query';
import { ApiError } from '../api/errors';

/**
 * The one TanStack Query client. A client error (4xx) is an answer, not a hiccup: it is shown at once
 * instead of being retried; network failures and 5xx are retried twice.
 */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 15_000,
      refetchOnWindowFocus: false,
      retry: (count, err) => !(err instanceof ApiError && err.status >= 400 && err.status < 500) && count < 2,
    },
    mutations: { retry: false },
  },
});
