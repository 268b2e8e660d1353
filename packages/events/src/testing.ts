import { randomBytes } from 'node:crypto';
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { EventBus } from './bus';
import { createMemoryBus } from './memory-bus';
import { createRabbitBus, type RabbitBusOptions } from './rabbit-bus';

/** Test helpers, published as `@gateway/events/testing` (not through index.ts: nothing in production uses them). */

/**
 * The broker tests run against. CI must exercise RabbitMQ: a missing AMQP_URL there is a broken
 * run, not a skip.
 */
export function testAmqpUrl(): string | undefined {
  const url = process.env.AMQP_URL;
  if (!url && process.env.CI === 'true') throw new Error('CI=true but AMQP_URL is not set');
  return url || undefined;
}

/** A namespace of its own per test bus, so parallel test files never take each other's messages. */
export const testNamespace = (): string => `test_${randomBytes(5).toString('hex')}`;

/** Options for a RabbitMQ bus in a test: own namespace, nothing left behind on the broker. */
export const testRabbitOptions = (namespace = testNamespace()): RabbitBusOptions => ({
  namespace,
  ephemeralQueueTtlMs: 60_000,
  connectionName: `test:${namespace}`,
});

/** RabbitMQ when AMQP_URL is set (own namespace), the in-process bus otherwise. */
export function testBus(options: RabbitBusOptions = {}): EventBus {
  const url = testAmqpUrl();
  return url ? createRabbitBus(url, { ...testRabbitOptions(), ...options }) : createMemoryBus();
}

/**
 * A TCP relay in front of the broker whose link a test can cut and restore, to play a broker
 * outage and its return without touching the broker other tests share.
 */
export interface OutageProxy {
  /** amqp://… through the proxy. */
  url: string;
  /** Closes the listener and every open connection: the client sees the broker vanish. */
  cut(): Promise<void>;
  /** Listens again on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startOutageProxy(amqpUrl: string): Promise<OutageProxy> {
  const target = new URL(amqpUrl);
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = createServer((client) => {
        const upstream = connect(Number(target.port || 5672), target.hostname);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
          socket.on('error', () => socket.destroy());
        }
        client.pipe(upstream).pipe(client);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as { port: number }).port;
        resolve();
      });
    });
  const cut = async () => {
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  };

  await listen();
  const url = new URL(amqpUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return { url: url.toString(), cut, restore: listen, close: cut };
}

/** Resolves once `predicate` holds, checking after each event loop turn (no fixed sleeps in assertions). */
export async function eventually(
  predicate: () => boolean | Promise<boolean>,
  what = 'condition',
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
