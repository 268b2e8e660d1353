import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { openDatabase } from '@gateway/db';

function rabbitmqctl(...args: string[]): boolean {
  try {
    execFileSync('rabbitmqctl', args, { stdio: 'ignore', timeout: 30_000 });
    return true;
  } catch {
    return false;
  }
}

export interface Scratch {
  /** `<prefix>_<run>` */
  name: string;
  databaseUrl: string;
  amqpUrl: string;
  /** The vhost is the run's own (rabbitmqctl was at hand); otherwise the given URL's vhost is shared. */
  ownVhost: boolean;
  /** Drops the database (unless `keepDatabase`) and the vhost. */
  drop(options?: { keepDatabase?: boolean }): Promise<void>;
}

/**
 * A PostgreSQL database and a RabbitMQ vhost of a run's own on the given servers, so a layout of
 * many processes touches no other test's rows or queues; dropped at the end.
 */
export async function createScratch(prefix: string, baseDatabaseUrl: string, baseAmqpUrl: string): Promise<Scratch> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const server = await openDatabase({ url: baseDatabaseUrl, poolSize: 1 });
  try {
    await server.knex.raw(`create database "${name}"`);
  } finally {
    await server.close();
  }
  const databaseUrl = new URL(baseDatabaseUrl);
  databaseUrl.pathname = `/${name}`;
  const amqp = new URL(baseAmqpUrl);
  const ownVhost =
    rabbitmqctl('add_vhost', name) &&
    rabbitmqctl('set_permissions', '-p', name, decodeURIComponent(amqp.username || 'guest'), '.*', '.*', '.*');
  if (ownVhost) amqp.pathname = `/${encodeURIComponent(name)}`;
  return {
    name,
    databaseUrl: databaseUrl.toString(),
    amqpUrl: amqp.toString(),
    ownVhost,
    async drop(options = {}) {
      if (!options.keepDatabase) {
        const admin = await openDatabase({ url: baseDatabaseUrl, poolSize: 1 });
        await admin.knex.raw(`drop database if exists "${name}" with (force)`).finally(() => admin.close());
      }
      if (ownVhost) rabbitmqctl('delete_vhost', name);
    },
  };
}
