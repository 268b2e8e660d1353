import { AsyncResource } from 'node:async_hooks';
import type { EventBus, EventHandler, Subscription } from './bus';
import { topicMatches } from './bus';
import type { PlatformEvent } from './event';

interface Consumer {
  patterns: readonly string[];
  handler: EventHandler;
}

const matches = (consumer: Consumer, kind: string) => consumer.patterns.some((pattern) => topicMatches(pattern, kind));

const RETRY_DELAY_MS = 1000;

/** Embedded mode's bus: in-process, same semantics as the RabbitMQ adapter for one process. */
export function createMemoryBus(): EventBus {
  const groups = new Map<string, Consumer[]>();
  const subscribers = new Set<Consumer>();
  let closed = false;
  /*
   * Handlers run in the async context of the bus's creation, never in the publisher's: a relay
   * publishes from inside its service's transaction, and an ORM that finds transactions through
   * async-local storage (MikroORM's TransactionContext, one per context name, and every service
   * names its ORM 'default') would otherwise let another service's consumer join that
   * transaction. RabbitMQ deliveries carry no context either.
   */
  const scope = new AsyncResource('memory-bus-delivery');

  const deliver = (consumer: Consumer, event: PlatformEvent): void => {
    // Asynchronous, like a broker: publish never waits for consumers.
    scope.runInAsyncScope(setImmediate, null, () => {
      if (closed) return;
      consumer.handler(event).catch(() => {
        const timer = setTimeout(() => deliver(consumer, event), RETRY_DELAY_MS);
        timer.unref();
      });
    });
  };

  return {
    async publish(event) {
      if (closed) throw new Error('bus closed');
      for (const consumers of groups.values()) {
        const matching = consumers.filter((c) => matches(c, event.kind));
        // One consumer per group, spread round-robin by event id.
        if (matching.length) deliver(matching[event.id.charCodeAt(event.id.length - 1) % matching.length]!, event);
      }
      for (const subscriber of subscribers) if (matches(subscriber, event.kind)) deliver(subscriber, event);
    },
    async consume(group, pattern, handler): Promise<Subscription> {
      const consumer: Consumer = { patterns: typeof pattern === 'string' ? [pattern] : pattern, handler };
      groups.set(group, [...(groups.get(group) ?? []), consumer]);
      return {
        async close() {
          groups.set(
            group,
            (groups.get(group) ?? []).filter((c) => c !== consumer),
          );
        },
      };
    },
    async subscribe(pattern, handler): Promise<Subscription> {
      const subscriber: Consumer = { patterns: [pattern], handler };
      subscribers.add(subscriber);
      return {
        async close() {
          subscribers.delete(subscriber);
        },
      };
    },
    async close() {
      closed = true;
      groups.clear();
      subscribers.clear();
    },
  };
}
