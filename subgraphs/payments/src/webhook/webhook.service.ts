import type { EntityManager } from '@mikro-orm/postgresql';
import { GatewayError, invalid } from '@gateway/kernel';
import { deliveries } from './delivery.repository';
import { WebhookAttemptEntity, WebhookDeliveryEntity } from './webhook-delivery.entity';

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;

/** One answer for an unknown id and another audience's (merchant or TPP), so a credential cannot probe which exist. */
const deliveryNotFound = (id: string) =>
  new GatewayError('WEBHOOK_DELIVERY_NOT_FOUND', `no webhook delivery with id ${id}`);

export interface DeliveryPage {
  deliveries: WebhookDeliveryEntity[];
  hasMore: boolean;
}

/**
 * An audience's view of its webhook deliveries (a merchant's, or a TPP's Open Banking ones): the
 * log, and redelivery by hand. Every query is scoped to the caller's own id.
 */
export class WebhookDeliveryService {
  private wakeDispatcher: () => void = () => undefined;

  /** The running dispatcher (started after the schema): a manual retry goes out at once, not at its next poll. */
  attachDispatcher(dispatcher: { wake(): void }): void {
    this.wakeDispatcher = () => dispatcher.wake();
  }

  async find(em: EntityManager, audienceId: string, id: string): Promise<WebhookDeliveryEntity> {
    const delivery = await em.findOne(WebhookDeliveryEntity, { id, audienceId });
    if (!delivery) throw deliveryNotFound(id);
    return delivery;
  }

  /**
   * Newest first; `after` is the id of the last delivery of the previous page. `aggregateId` keeps
   * one session's (mandate's, consent's) deliveries, still within the caller's own: another
   * audience's aggregate simply has none here.
   */
  async list(
    em: EntityManager,
    audienceId: string,
    first: number,
    after?: string | null,
    aggregateId?: string | null,
  ): Promise<DeliveryPage> {
    if (!Number.isInteger(first) || first < 1 || first > MAX_PAGE_SIZE)
      throw invalid('first', `must be an integer from 1 to ${MAX_PAGE_SIZE}`);
    const scope: Record<string, unknown> = aggregateId ? { audienceId, aggregateId } : { audienceId };
    let where: Record<string, unknown> = scope;
    if (after) {
      const cursor = await em.findOne(WebhookDeliveryEntity, { ...scope, id: after });
      if (!cursor) throw invalid('after', 'is not a delivery of this caller');
      where = {
        ...scope,
        $or: [{ createdAt: { $lt: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { $lt: cursor.id } }],
      };
    }
    const rows = await em.find(WebhookDeliveryEntity, where, {
      orderBy: { createdAt: 'desc', id: 'desc' },
      limit: first + 1,
    });
    return { deliveries: rows.slice(0, first), hasMore: rows.length > first };
  }

  async attempts(em: EntityManager, deliveryId: string): Promise<WebhookAttemptEntity[]> {
    return em.find(WebhookAttemptEntity, { deliveryId }, { orderBy: { number: 'asc' } });
  }

  /**
   * Sends the delivery again now, whatever its status: a FAILED one gets one more attempt, a
   * DELIVERED one is redelivered (same event id, so the receiver can tell).
   */
  async retry(em: EntityManager, audienceId: string, id: string): Promise<WebhookDeliveryEntity> {
    const delivery = await deliveries.resetForRetry(em, audienceId, id);
    if (!delivery) throw deliveryNotFound(id);
    this.wakeDispatcher();
    return delivery;
  }
}
