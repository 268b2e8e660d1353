import type { EntityManager } from '@mikro-orm/postgresql';
import { openServiceOrm, type Database } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import { migrateVault } from '@gateway/vault';
import { migrations } from './migrations';
import { WebhookEndpointEntity } from './webhook-endpoint/webhook-endpoint.entity';
import { WebhookAttemptEntity, WebhookDeliveryEntity } from './webhook/webhook-delivery.entity';
import { WebhookEventEntity } from './webhook/webhook-event.entity';

/** For the webhook specs: a test database of their own with the payments schema migrated (the ORM only migrates it). */
export async function openWebhookDatabase(): Promise<{ db: Database; em(): EntityManager; close(): Promise<void> }> {
  const db = await openTestDatabase();
  await migrateVault(db);
  const orm = await openServiceOrm(db, {
    schema: 'payments',
    entities: [WebhookDeliveryEntity, WebhookAttemptEntity, WebhookEventEntity, WebhookEndpointEntity],
    migrations,
    foreignSchemas: ['auth'],
  });
  return {
    db,
    em: () => orm.em.fork() as EntityManager,
    async close() {
      await orm.close();
      await db.close();
    },
  };
}
