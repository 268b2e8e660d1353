/// <reference path="../../router/src/types/ws-modules.d.ts" />
import { createClient } from 'graphql-ws';
import { WebSocket } from 'ws';
import { SubscriptionOrder } from './evidence';

const SESSION_UPDATES = 'subscription Watch($id: ID!) { paymentSessionUpdated(id: $id) { status } }';

/**
 * paymentSessionUpdated(id) watched for a sample of the run's sessions, as a merchant's dashboard
 * would: graphql-ws through the public address (HAProxy → rest-compat → router), the merchant key
 * in connectionParams. When an instance on the way is killed the socket closes and the watcher
 * connects again (the new subscription starts with the current state), until the session's
 * final status. Each watcher's statuses are checked by SubscriptionOrder.
 */
export class SubscriptionSample {
  readonly watched: Array<{ sessionId: string; order: SubscriptionOrder }> = [];
  /** Connections that ended before a final status (killed instance, refused subscribe) and were made again. */
  reconnects = 0;
  /** Messages with GraphQL errors instead of a status (a subgraph unreachable while the router resolved one). */
  errorMessages = 0;
  private open = 0;
  private stopping = false;
  private readonly running: Promise<void>[] = [];
  private readonly disposers = new Set<() => void>();

  constructor(
    private readonly graphqlUrl: string,
    private readonly merchantKey: string,
    /** Watchers open at once; sessions created while all are busy are not sampled. */
    private readonly limit = 50,
  ) {}

  /** Starts watching `sessionId` if a place is free; answers whether it does. */
  offer(sessionId: string): boolean {
    if (this.stopping || this.open >= this.limit) return false;
    const order = new SubscriptionOrder();
    this.watched.push({ sessionId, order });
    this.open += 1;
    this.running.push(this.watch(sessionId, order).finally(() => (this.open -= 1)));
    return true;
  }

  /** Statuses received twice in one connection, over every watcher. */
  get repeated(): number {
    return this.watched.reduce((n, w) => n + w.order.repeated, 0);
  }

  /** Statuses older than one received before, over every watcher. */
  get backwards(): number {
    return this.watched.reduce((n, w) => n + w.order.backwards, 0);
  }

  /** Waits up to `graceMs` for the watchers to see their sessions' final statuses, then closes the rest. */
  async stop(graceMs: number): Promise<void> {
    const all = Promise.all(this.running);
    await Promise.race([all, new Promise((resolve) => setTimeout(resolve, graceMs))]);
    this.stopping = true;
    for (const dispose of this.disposers) dispose();
    await all;
  }

  private async watch(sessionId: string, order: SubscriptionOrder): Promise<void> {
    while (!this.stopping && !order.final) {
      if (order.connections > 0) {
        this.reconnects += 1;
        await new Promise((resolve) => setTimeout(resolve, 300));
        if (this.stopping) return;
      }
      order.connected();
      await this.connection(sessionId, order);
    }
  }

  /** One connection and subscription: resolves when it completes, errors or its socket closes. */
  private connection(sessionId: string, order: SubscriptionOrder): Promise<void> {
    return new Promise<void>((resolve) => {
      const client = createClient({
        url: this.graphqlUrl.replace(/^http/, 'ws'),
        webSocketImpl: WebSocket,
        connectionParams: { authorization: `Bearer ${this.merchantKey}` },
        lazy: true,
        // Reconnection is the watcher's own, so each connection's first message is known.
        retryAttempts: 0,
        shouldRetry: () => false,
      });
      const done = () => {
        this.disposers.delete(done);
        void client.dispose();
        resolve();
      };
      this.disposers.add(done);
      client.subscribe(
        { query: SESSION_UPDATES, variables: { id: sessionId } },
        {
          next: (message) => {
            const status = (message.data as { paymentSessionUpdated?: { status?: string } } | null | undefined)
              ?.paymentSessionUpdated?.status;
            if (typeof status === 'string') order.status(status);
            else this.errorMessages += 1;
          },
          error: () => done(),
          complete: () => done(),
        },
      );
    });
  }
}
