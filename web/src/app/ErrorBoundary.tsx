import { Button, Center, Stack } from '@mantine/core';
import { Component, type ErrorInfo, type ReactNode } from 'react';
import { ApiError, toApiError } from '../api/errors';
import { ErrorAlert } from '../components/ErrorAlert';

interface Props {
  children: ReactNode;
  /** When it changes (the URL), a shown error is cleared and the children rendered again. */
  resetKey?: string;
}

/**
 * What a screen shows when it crashed or its chunk failed to load (e.g. after a deploy replaced the
 * files): the error and a reload button, never a blank page. Navigating elsewhere (a new
 * `resetKey`) recovers.
 */
export class ErrorBoundary extends Component<Props, { error: ApiError | null }> {
  state = { error: null as ApiError | null };

  static getDerivedStateFromError(error: unknown) {
    return { error: toApiError(error) };
  }

  componentDidUpdate(prev: Props) {
    if (this.state.error && prev.resetKey !== this.props.resetKey) this.setState({ error: null });
  }

  componentDidCatch(error: unknown, info: ErrorInfo) {
    console.error('screen crashed', error, info.componentStack);
  }

  render() {
    if (!this.state.error) return this.props.children;
    return (
      <Center p="xl" mih="50vh">
        <Stack maw={560} w="100%">
          <ErrorAlert error={this.state.error} title="This page failed" />
          <Button variant="default" onClick={() => window.location.reload()}>
            Reload the page
          </Button>
        </Stack>
      </Center>
    );
  }
}
