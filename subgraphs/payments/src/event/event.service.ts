import type { EntityManager } from '@mikro-orm/postgresql';
import { GatewayError, invalid, z, parseInput } from '@gateway/kernel';
import { WebhookEventEntity } from '../webhook/webhook-event.entity';
import { WebhookDeliveryEntity } from '../webhook/webhook-delivery.entity';

export const MAX_PAGE_SIZE = 100;
/** API-CONTRACT: events are kept 30 days (the event-retention job prunes older ones). */
export const EVENT_RETENTION_DAYS = 30;

const eventNotFound = (id: string) => new GatewayError('EVENT_NOT_FOUND', `no event with id ${id}`);

const instant = z.iso
  .datetime({ offset: true, error: 'must be an ISO 8601 date-time' })
  .transform((at) => new Date(at))
  .nullish();

const listRules = z
  .object({
    type: z.string().trim().min(1, 'must not be empty').max(100).nullish(),
    from: instant,
    to: instant,
  })
  .strict();

/** Whose events: the caller's audience id, in its world (null: both, the operator's and a bank's). */
export interface EventScope {
  audienceId: string;
  livemode: boolean | null;
}

const whereOf = (scope: EventScope): { audienceId: string; livemode?: boolean } =>
  scope.livemode === null
    ? { audienceId: scope.audienceId }
    : { audienceId: scope.audienceId, livemode: scope.livemode };

/** An owner's event log (read only: the intake writes it, the retention job prunes it). */
export class EventService {
  async find(em: EntityManager, scope: EventScope, id: string): Promise<WebhookEventEntity> {
    const event = await em.findOne(WebhookEventEntity, { id, ...whereOf(scope) });
    if (!event) throw eventNotFound(id);
    return event;
  }

  /** Newest first; `type` one kind, [from, to) a created range; `after` is the last event id of the previous page. */
  async list(
    em: EntityManager,
    scope: EventScope,
    filter: { type?: string | null; from?: string | null; to?: string | null },
    first: number,
    after?: string | null,
  ): Promise<{ events: WebhookEventEntity[]; hasMore: boolean }> {
    if (!Number.isInteger(first) || first < 1 || first > MAX_PAGE_SIZE)
      throw invalid('first', `must be an integer from 1 to ${MAX_PAGE_SIZE}`);
    const valid = parseInput(listRules, filter);
    const created: Record<string, Date> = {};
    if (valid.from) created.$gte = valid.from;
    if (valid.to) created.$lt = valid.to;
    const where: Record<string, unknown>[] = [
      whereOf(scope),
      ...(valid.type ? [{ kind: valid.type }] : []),
      ...(Object.keys(created).length > 0 ? [{ createdAt: created }] : []),
    ];
    if (after) {
      const cursor = await em.findOne(WebhookEventEntity, { id: after, audienceId: scope.audienceId });
      if (!cursor) throw invalid('after', 'is not an event of this caller');
      where.push({
        $or: [{ createdAt: { $lt: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { $lt: cursor.id } }],
      });
    }
    const rows = await em.find(
      WebhookEventEntity,
      { $and: where },
      { orderBy: { createdAt: 'desc', id: 'desc' }, limit: first + 1 },
    );
    return { events: rows.slice(0, first), hasMore: rows.length > first };
  }

  /** An event's deliveries to the caller's endpoints, oldest first. */
  async deliveriesOf(
    em: EntityManager,
    scope: Pick<EventScope, 'audienceId'>,
    eventId: string,
  ): Promise<WebhookDeliveryEntity[]> {
    return em.find(
      WebhookDeliveryEntity,
      { eventId, audienceId: scope.audienceId },
      { orderBy: { createdAt: 'asc', id: 'asc' } },
    );
  }
}
