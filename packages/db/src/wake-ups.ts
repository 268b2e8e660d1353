import type { Knex } from '@mikro-orm/knex';

/**
 * Wake-ups by PostgreSQL NOTIFY (issue 53: jobs sleep when idle). A writer sends `pg_notify(channel)`
 * in the statement (or a trigger of the table) that creates work; every process listening on the
 * channel wakes the job that takes it, on any instance, instead of that job polling. A NOTIFY is a
 * hint, never the only way: one lost with a dropped connection only delays the work until the
 * job's slow fallback poll, and after a reconnect every job is woken once (it may have missed one).
 */
export interface WakeUps {
  /**
   * Calls `wake` on every NOTIFY on `channel` (a lower-case SQL identifier) from another process,
   * and once after the listening connection came back. Answers a function that stops it.
   */
  on(channel: string, wake: () => void): () => void;
  close(): Promise<void>;
}

/** A NotificationResponse as the `pg` driver emits it. */
interface PgNotification {
  channel: string;
  processId: number;
}

/** The driver's connection, as far as listening goes. */
interface ListeningConnection {
  processID?: number;
  query(text: string): Promise<unknown>;
  on(event: 'notification', listener: (message: PgNotification) => void): unknown;
  on(event: 'error' | 'end', listener: (error?: Error) => void): unknown;
  removeAllListeners(): unknown;
}

const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;
const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 10_000;

const wakeUpsByKnex = new WeakMap<object, WakeUps>();

/**
 * The wake-ups of the process-wide pool `knex` (one listener per process and database), made on
 * first use; closed with the pool (knex's destroy).
 */
export function wakeUpsOf(knex: Knex): WakeUps {
  let wakeUps = wakeUpsByKnex.get(knex);
  if (!wakeUps) wakeUpsByKnex.set(knex, (wakeUps = startWakeUps(knex)));
  return wakeUps;
}

/** Channels and their listeners, and the call of each on a notification. */
class Listeners {
  private readonly byChannel = new Map<string, Set<() => void>>();

  add(channel: string, wake: () => void): boolean {
    if (!CHANNEL.test(channel)) throw new Error(`not a wake-up channel name: ${channel}`);
    let set = this.byChannel.get(channel);
    const fresh = !set;
    if (!set) this.byChannel.set(channel, (set = new Set()));
    set.add(wake);
    return fresh;
  }

  remove(channel: string, wake: () => void): void {
    this.byChannel.get(channel)?.delete(wake);
  }

  channels(): string[] {
    return [...this.byChannel.keys()];
  }

  wake(channel: string): void {
    for (const wake of this.byChannel.get(channel) ?? []) wake();
  }

  wakeAll(): void {
    for (const channel of this.byChannel.keys()) this.wake(channel);
  }
}

/**
 * PostgreSQL: one dedicated connection per process (outside the pool) listens, reconnecting with
 * backoff. Notifications sent by this process's own pool connections are left out: whoever wrote
 * in this process wakes its job in-process at once (faster than a NOTIFY round trip), and a
 * second pass for the same rows would be a statement spent for nothing.
 */
function startWakeUps(knex: Knex): WakeUps {
  const listeners = new Listeners();
  /** Backend ids of this process's pool connections (PostgreSQL). */
  const ownBackends = new Set<number>();
  let closed = false;
  /** PGlite (its version says so) or PostgreSQL: known before the first LISTEN. */
  let isEmbedded: boolean | undefined;

  const dispatch = (message: PgNotification) => {
    if (closed) return;
    // PGlite is one backend that every connection shares: nothing tells whose write it was.
    if (!isEmbedded && ownBackends.has(message.processId)) return;
    listeners.wake(message.channel);
  };

  // PGlite: its connections (the socket multiplexer's) are one backend session: a LISTEN sent on
  // the pool holds for all of them, and a notification arrives on whichever connection sent the
  // statement that was running; each pool connection hands it on.
  // PostgreSQL: the listener's own connection.
  let listener: ListeningConnection | undefined;
  let connecting: Promise<void> | undefined;
  let failures = 0;
  let retry: NodeJS.Timeout | undefined;
  const client = knex.client as unknown as {
    acquireRawConnection(): Promise<ListeningConnection>;
    destroyRawConnection(connection: ListeningConnection): Promise<void>;
  };

  const listenSql = (channel: string) => `listen "${channel}"`;
  const listen = (channel: string) =>
    (isEmbedded ? knex.raw(listenSql(channel)) : listener?.query(listenSql(channel)))?.catch(() => undefined);

  // Every pool connection is seen when it is handed out, before its first statement (tarn's event).
  const seen = new WeakSet<object>();
  const pool = (
    knex.client as unknown as { pool?: { on(event: string, listener: (...args: unknown[]) => void): void } }
  ).pool;
  pool?.on('acquireSuccess', (_eventId, resource) => {
    const connection = resource as ListeningConnection;
    if (seen.has(connection)) return;
    seen.add(connection);
    connection.on('notification', (message) => {
      if (isEmbedded) dispatch(message);
    });
    if (connection.processID !== undefined) {
      const id = connection.processID;
      ownBackends.add(id);
      connection.on('end', () => ownBackends.delete(id));
    }
  });

  const connect = (): Promise<void> =>
    (connecting ??= (async () => {
      try {
        if (isEmbedded === undefined) {
          const { rows } = (await knex.raw('select version() as version')) as { rows: Array<{ version: string }> };
          isEmbedded = /PGlite/i.test(rows[0]?.version ?? '');
        }
        if (isEmbedded) {
          for (const channel of listeners.channels()) await knex.raw(listenSql(channel));
        } else {
          const connection = await client.acquireRawConnection();
          if (closed) {
            await client.destroyRawConnection(connection).catch(() => undefined);
            return;
          }
          const lost = () => {
            if (listener !== connection) return;
            listener = undefined;
            connection.removeAllListeners();
            connection.on('error', () => undefined); // a late error of a connection given up
            void client.destroyRawConnection(connection).catch(() => undefined);
            reconnectLater();
          };
          connection.on('notification', dispatch);
          connection.on('error', lost);
          connection.on('end', lost);
          for (const channel of listeners.channels()) await connection.query(listenSql(channel));
          listener = connection;
        }
        const reconnected = failures > 0;
        failures = 0;
        // Whatever was notified while no one listened is looked for now.
        if (reconnected) listeners.wakeAll();
      } catch {
        reconnectLater();
      } finally {
        connecting = undefined;
      }
    })());

  const reconnectLater = () => {
    if (closed) return;
    failures += 1;
    clearTimeout(retry);
    retry = setTimeout(() => void connect(), Math.min(RECONNECT_MAX_MS, RECONNECT_MIN_MS * 2 ** (failures - 1)));
    retry.unref();
  };

  const wakeUps: WakeUps = {
    on(channel, wake) {
      if (listeners.add(channel, wake) && !closed) {
        if (listener) void listener.query(listenSql(channel)).catch(() => undefined);
        else if (connecting) void connecting.then(() => listen(channel));
        else if (isEmbedded) void knex.raw(listenSql(channel)).catch(() => reconnectLater());
        else if (failures === 0) void connect();
      }
      return () => listeners.remove(channel, wake);
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      await connecting;
      const connection = listener;
      listener = undefined;
      if (connection) {
        connection.removeAllListeners();
        connection.on('error', () => undefined);
        await client.destroyRawConnection(connection).catch(() => undefined);
      }
    },
  };
  // The pool's end ends the listener (knex's destroy, whoever closes the database).
  pool?.on('poolDestroyRequest', () => void wakeUps.close());
  return wakeUps;
}
