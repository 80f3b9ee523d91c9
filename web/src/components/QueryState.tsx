import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ErrorAlert } from './ErrorAlert';
import { ContentSkeleton } from './Loading';

interface QueryStateProps<T> {
  query: UseQueryResult<T>;
  /** Rendered with the data once loaded. */
  children: (data: T) => ReactNode;
  /** Shown instead of `children` when `isEmpty(data)`. */
  empty?: ReactNode;
  isEmpty?: (data: T) => boolean;
  skeletonRows?: number;
}

/**
 * The three states of a screen's data in one place: a skeleton while loading, the server's error (with
 * request id and a retry) when it failed, the empty state when there is nothing, else the content.
 */
export function QueryState<T>({ query, children, empty, isEmpty, skeletonRows }: QueryStateProps<T>) {
  if (query.isPending) return <ContentSkeleton rows={skeletonRows} />;
  if (query.isError) return <ErrorAlert error={query.error} onRetry={() => void query.refetch()} />;
  const data = query.data as T;
  if (empty && (isEmpty ? isEmpty(data) : Array.isArray(data) && data.length === 0)) return <>{empty}</>;
  return <>{children(data)}</>;
}
