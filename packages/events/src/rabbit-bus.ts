import { Connection, ConsumerStatus, type AsyncMessage, type Consumer } from 'rabbitmq-client';
import type { EventBus, EventHandler, Subscription } from './bus';
import type { PlatformEvent } from './event';

export interface RabbitBusOptions {
  /**
   * Prefix of the exchange and queue names, so that several deployments (or parallel test files)
   * can share one vhost without taking each other's messages. Default: none.
   */
  namespace?: string;
  /**
   * Test runs: the exchange goes away with its last binding and durable queues expire after this
   * long unused, so a broker shared by many runs does not collect their leftovers.
   */
  ephemeralQueueTtlMs?: number;
  /** Messages a consumer holds unacknowledged at once (per group or subscription). */
  prefetch?: number;
  /** How long publish waits for a confirm before it fails (the relay then tries again). */
  publishTimeoutMs?: number;
  /** Called with errors the client recovers from by itself (reconnects, consumer restarts). */
  onError?: (error: unknown) => void;
  connectionName?: string;
}

/** Thrown by publish while the broker is unreachable: the relay leaves the event in the outbox. */
export class BusUnavailableError extends Error {
  constructor(reason: string) {
    super(`event bus unavailable: ${reason}`);
    this.name = 'BusUnavailableError';
  }
}

const EXCHANGE = 'gateway.events';
/** A handler that throws gets its message back after this pause, not in a hot loop. */
const REDELIVERY_PAUSE_MS = 1000;

const withTimeout = <T>(promise: Promise<T>, ms: number, reason: string): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new BusUnavailableError(reason)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });

function decode(message: AsyncMessage): PlatformEvent | null {
  const body = Buffer.isBuffer(message.body) ? JSON.parse(message.body.toString('utf8')) : message.body;
  return body && typeof body === 'object' && typeof body.id === 'string' && typeof body.kind === 'string'
    ? (body as PlatformEvent)
    : null;
}

/**
 * The RabbitMQ adapter (rabbitmq-client): one topic exchange, routing key = event kind; a durable
 * queue per consume group (competing consumers, manual acks, prefetch); an exclusive auto-delete
 * queue per subscribe (fan-out). Publishes wait for the broker's confirm. The client reconnects
 * by itself and re-declares exchanges, queues and bindings each time.
 */
export function createRabbitBus(url: string, options: RabbitBusOptions = {}): EventBus {
  const prefix = options.namespace ? `${options.namespace}.` : '';
  const exchange = `${prefix}${EXCHANGE}`;
  const ephemeral = options.ephemeralQueueTtlMs !== undefined;
  const exchangeDeclaration = { exchange, type: 'topic', durable: !ephemeral, autoDelete: ephemeral };
  const prefetch = options.prefetch ?? 50;
  const publishTimeoutMs = options.publishTimeoutMs ?? 5000;
  const report = options.onError ?? (() => undefined);

  const connection = new Connection({
    url,
    connectionName: options.connectionName ?? 'gateway',
    retryLow: 250,
    retryHigh: 5000,
    acquireTimeout: publishTimeoutMs,
    noDelay: true,
  });
  // Whether the last connection attempt failed: then publish fails at once instead of waiting.
  let unreachable = false;
  connection.on('error', (error) => {
    unreachable = !connection.ready;
    report(error);
  });
  connection.on('connection', () => {
    unreachable = false;
  });
  /** Waits for the outcome of the current connection attempt: true when it connected. */
  const firstAttempt = (ms: number) =>
    new Promise<boolean>((resolve) => {
      const done = (connected: boolean) => {
        clearTimeout(timer);
        connection.off('connection', onConnection);
        connection.off('error', onError);
        resolve(connected);
      };
      const onConnection = () => done(true);
      const onError = () => done(connection.ready);
      const timer = setTimeout(() => done(connection.ready), ms);
      connection.on('connection', onConnection);
      connection.on('error', onError);
    });
  const publisher = connection.createPublisher({ confirm: true, maxAttempts: 1, exchanges: [exchangeDeclaration] });
  publisher.on('retry', report);

  const consumers = new Set<Consumer>();
  // A group's durable queue must be bound before events for it are published, or the broker
  // drops them as unroutable: publish waits for the first setup of this process's groups.
  const firstSetups = new Set<Promise<void>>();
  let closed = false;

  const startConsumer = async (
    queue: string,
    patterns: readonly string[],
    handler: EventHandler,
    durable: boolean,
    onResumed?: () => void,
  ): Promise<Subscription> => {
    const consumer = connection.createConsumer(
      {
        queue,
        queueOptions: durable
          ? { durable: true, arguments: ephemeral ? { 'x-expires': options.ephemeralQueueTtlMs } : undefined }
          : { exclusive: true, autoDelete: true, durable: false },
        qos: { prefetchCount: prefetch },
        concurrency: prefetch,
        requeue: true,
        exchanges: [exchangeDeclaration],
        queueBindings: patterns.map((routingKey) => ({ exchange, routingKey, queue })),
      },
      async (message) => {
        const event = decode(message);
        if (!event) return ConsumerStatus.DROP; // not ours: never redeliver garbage
        try {
          await handler(event);
          return ConsumerStatus.ACK;
        } catch (error) {
          report(error);
          await new Promise((resolve) => setTimeout(resolve, REDELIVERY_PAUSE_MS));
          return ConsumerStatus.REQUEUE;
        }
      },
    );
    consumer.on('error', report);
    // 'ready' comes after every setup: the first one, then one per reconnection (a new queue for a fan-out subscriber).
    let setups = 0;
    if (onResumed) consumer.on('ready', () => void (setups++ > 0 && onResumed()));
    consumers.add(consumer);
    const setup = new Promise<void>((resolve) => consumer.once('ready', () => resolve()));
    if (durable) {
      firstSetups.add(setup);
      void setup.then(() => firstSetups.delete(setup));
    }
    // With the broker up, the queue is bound when this resolves: nothing published afterwards is
    // missed. With the broker down, start goes on; the client declares everything on reconnect.
    if (!unreachable && !closed) {
      const failed = connection.ready
        ? new Promise<void>(() => undefined)
        : firstAttempt(publishTimeoutMs).then((connected) => (connected ? setup : undefined));
      await withTimeout(Promise.race([setup, failed]), publishTimeoutMs, 'consumer setup').catch(report);
    }
    return {
      async close() {
        consumers.delete(consumer);
        await consumer.close();
      },
    };
  };

  return {
    async publish(event) {
      if (closed) throw new BusUnavailableError('closed');
      if (!connection.ready) {
        // Fail at once while the broker is known to be down rather than hold the caller (and its
        // transaction); only the very first connection is waited for.
        if (unreachable || !(await firstAttempt(publishTimeoutMs))) throw new BusUnavailableError('not connected');
      }
      if (firstSetups.size)
        await withTimeout(Promise.all(firstSetups), publishTimeoutMs, 'consumer queues not declared yet');
      await withTimeout(
        publisher.send(
          {
            exchange,
            routingKey: event.kind,
            messageId: event.id,
            type: event.kind,
            contentType: 'application/json',
            durable: true,
            timestamp: Math.floor(Date.parse(event.createdAt) / 1000),
          },
          event,
        ),
        publishTimeoutMs,
        'no publisher confirm in time',
      );
    },
    async consume(group, pattern, handler) {
      return startConsumer(
        `${prefix}gateway.${group}`,
        typeof pattern === 'string' ? [pattern] : pattern,
        handler,
        true,
      );
    },
    async subscribe(pattern, handler, subscribeOptions) {
      // Server-named, exclusive, auto-delete: the queue lives as long as this subscriber's connection.
      return startConsumer('', [pattern], handler, false, subscribeOptions?.onResumed);
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([...consumers].map((consumer) => consumer.close().catch(report)));
      consumers.clear();
      await publisher.close().catch(report);
      await connection.close().catch(report);
    },
  };
}
