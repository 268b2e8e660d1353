import type { EntityManager } from '@mikro-orm/postgresql';
import { GatewayError, parseInput } from '@gateway/kernel';
import type { WebhookDeliveryFilter } from '../listing/delivery-filter.input';
import { createdRange, keysetPage } from '../listing/keyset-page';
import { filterFields, listRules, PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX, statusRule } from '../listing/list.rules';
import { deliveries } from './delivery.repository';
import { DELIVERY_STATUSES, WebhookAttemptEntity, WebhookDeliveryEntity } from './webhook-delivery.entity';

export const MAX_PAGE_SIZE = PAGE_SIZE_MAX;
export const DEFAULT_PAGE_SIZE = PAGE_SIZE_DEFAULT;

/** webhookDeliveries (GET /webhooks/deliveries): page and filters. */
const deliveryListRules = listRules({ status: statusRule(DELIVERY_STATUSES).nullish(), event: filterFields.event });

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
   * Newest first, filtered (listing/keyset-page.ts); `after` is the id of the last delivery of the
   * previous page. `aggregateId` keeps one session's (mandate's, consent's) deliveries, still
   * within the caller's own: another audience's aggregate simply has none here.
   */
  async list(
    em: EntityManager,
    audienceId: string,
    first: number,
    after?: string | null,
    aggregateId?: string | null,
    filter?: WebhookDeliveryFilter | null,
  ): Promise<DeliveryPage> {
    const request = parseInput(deliveryListRules, {
      first,
      after,
      ...(filter ? JSON.parse(JSON.stringify(filter)) : {}),
    });
    const { status, event } = request;
    const page = await keysetPage(em, WebhookDeliveryEntity, {
      scope: aggregateId ? { audienceId, aggregateId } : { audienceId },
      fixed: [...createdRange<WebhookDeliveryEntity>(request), ...(event ? [{ eventKind: event }] : [])],
      changing: status ? [{ status }] : [],
      first: request.first,
      after: request.after,
    });
    return { deliveries: page.rows, hasMore: page.hasMore };
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
