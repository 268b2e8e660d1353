/// <reference path="../../router/src/types/ws-modules.d.ts" />
import { createClient, type Client } from 'graphql-ws';
import { WebSocket } from 'ws';

/** What one graphql-ws subscription saw: its messages, and how it ended. */
export interface SubscriptionRecord {
  messages: Array<{ data?: any; errors?: any[] }>;
  errors: unknown[];
  completed: boolean;
  /** Close code of the socket when the server closed it (4403: credential refused). */
  closeCode?: number;
  /** The close frame's reason (why the credential was refused, or the lifetime reached). */
  closeReason?: string;
  /** Resolves once `count` messages arrived (or the stream ended, whichever first). */
  waitForMessages(count: number, what?: string): Promise<void>;
  /** Resolves when the stream completes, errors or the socket closes. */
  ended: Promise<void>;
  client: Client;
  dispose(): Promise<void>;
}

/** http://host/graphql -> ws://host/graphql */
export const wsUrl = (graphqlUrl: string): string => graphqlUrl.replace(/^http/, 'ws');

/**
 * Subscribes as a browser or a dashboard would: graphql-ws over a real WebSocket, credentials in
 * connectionParams. No retries: a refusal is the test's to see.
 */
export function subscribe(
  graphqlUrl: string,
  connectionParams: Record<string, string>,
  query: string,
  variables: Record<string, unknown>,
): SubscriptionRecord {
  let endedResolve!: () => void;
  const ended = new Promise<void>((resolve) => (endedResolve = resolve));
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const notify = () => {
    for (const waiter of [...waiters]) {
      if (record.messages.length >= waiter.count || record.completed || record.errors.length) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };
  const client = createClient({
    url: wsUrl(graphqlUrl),
    webSocketImpl: WebSocket,
    connectionParams,
    lazy: false,
    retryAttempts: 0,
    shouldRetry: () => false,
    // Refusals and closes are recorded below; the client's default would print them.
    onNonLazyError: () => undefined,
    on: {
      closed: (event) => {
        record.closeCode = (event as { code?: number }).code;
        record.closeReason = (event as { reason?: string }).reason;
        endedResolve();
        notify();
      },
    },
  });
  const record: SubscriptionRecord = {
    messages: [],
    errors: [],
    completed: false,
    ended,
    client,
    waitForMessages(count, what = `${count} messages`) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(
                `timed out waiting for ${what}; got ${JSON.stringify(record.messages)} errors ${JSON.stringify(record.errors)}`,
              ),
            ),
          30_000,
        );
        waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
        notify();
      });
    },
    async dispose() {
      await client.dispose();
    },
  };
  client.subscribe(
    { query, variables },
    {
      next: (message) => {
        record.messages.push(message as { data?: any; errors?: any[] });
        notify();
      },
      error: (error) => {
        record.errors.push(error);
        endedResolve();
        notify();
      },
      complete: () => {
        record.completed = true;
        endedResolve();
        notify();
      },
    },
  );
  return record;
}
