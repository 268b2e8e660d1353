import type { EntityManager } from '@mikro-orm/postgresql';
import { audit, changesBetween, createdWith, SECRET_ISSUED, SECRET_REMOVED, type AuditedBy } from '@gateway/audit';
import { GatewayError, invalid, newId, newSecret, parseInput, sealSecret } from '@gateway/kernel';
import { isPrimaryEndpointId, MAX_ENDPOINTS, primaryEndpointId } from '../webhook/event-kinds';
import { endpointAuditFields } from './webhook-endpoint.audit';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';
import type { CreateWebhookEndpointInput, UpdateWebhookEndpointInput } from './webhook-endpoint.input';
import { createEndpointRules, replayRules, updateEndpointRules } from './webhook-endpoint.rules';
import { primaryEndpoint, toWebhookEndpoint, type WebhookEndpoint } from './webhook-endpoint.type';
import type { WebhookOwner } from './webhook-owner';
import { NEW_ENDPOINT_HOURS, replayWindow, type ReplayOutcome } from './webhook-replay';

export const MAX_PAGE_SIZE = 100;

/** One answer for an unknown id, another owner's and another world's, so a credential cannot probe which exist. */
const endpointNotFound = (id: string) =>
  new GatewayError('WEBHOOK_ENDPOINT_NOT_FOUND', `no webhook endpoint with id ${id}`);

export interface EndpointSettings {
  platformSecret: string;
  production: boolean;
  /** PRIVATE_TARGETS: an endpoint may name a private address. */
  webhookPrivateTargets: boolean;
}

/** An owner's rows: in its world when its credential has one (merchant, TPP), in both otherwise (operator, bank). */
const scopeOf = (owner: WebhookOwner): { audienceId: string; livemode?: boolean } =>
  owner.livemode === null
    ? { audienceId: owner.audienceId }
    : { audienceId: owner.audienceId, livemode: owner.livemode };

/**
 * The world of a new endpoint: a merchant's or TPP's is its credential's (a `mode` naming the
 * other one is refused, never silently ignored); the operator's and a bank's is the `mode` asked
 * for, live by default.
 */
export function endpointWorld(owner: Pick<WebhookOwner, 'livemode'>, mode: 'live' | 'test' | undefined): boolean {
  if (owner.livemode === null) return mode !== 'test';
  if (mode !== undefined && (mode === 'live') !== owner.livemode)
    throw invalid(
      'mode',
      `a merchant's or TPP's endpoint is in its credential's world (${owner.livemode ? 'live' : 'test'}): omit mode`,
    );
  return owner.livemode;
}

/**
 * Webhook endpoints of merchants, TPPs, the operator and banks (API-CONTRACT "Webhook endpoints
 * and events"): the one writer of payments.webhook_endpoints. Every query is scoped to the owner
 * (and to its world when its credential has one); the primary endpoint (the webhook_url) is
 * listed first but changes only with the webhook_url. Creating, changing and deleting an
 * endpoint is audited, its secret only as issued.
 */
export class WebhookEndpointService {
  private wakeDispatcher: () => void = () => undefined;

  constructor(private readonly settings: EndpointSettings) {}

  /** The running dispatcher: a replay goes out at once, not at its next poll. */
  attachDispatcher(dispatcher: { wake(): void }): void {
    this.wakeDispatcher = () => dispatcher.wake();
  }

  private targets() {
    return { production: this.settings.production, privateTargets: this.settings.webhookPrivateTargets };
  }

  private primaryOf(owner: WebhookOwner): WebhookEndpoint | null {
    return owner.primary && owner.livemode !== null
      ? primaryEndpoint(primaryEndpointId(owner.audienceId), owner.primary.url, owner.livemode, owner.primary.createdAt)
      : null;
  }

  private async row(em: EntityManager, owner: WebhookOwner, id: string): Promise<WebhookEndpointEntity> {
    const found = await em.findOne(WebhookEndpointEntity, { id, ...scopeOf(owner) });
    if (!found) throw endpointNotFound(id);
    return found;
  }

  async find(em: EntityManager, owner: WebhookOwner, id: string): Promise<WebhookEndpoint> {
    if (isPrimaryEndpointId(id)) {
      const primary = this.primaryOf(owner);
      if (!primary || primary.id !== id) throw endpointNotFound(id);
      return primary;
    }
    return toWebhookEndpoint(await this.row(em, owner, id));
  }

  /** The primary endpoint first, then oldest first; `after` is the id of the last endpoint of the previous page. */
  async list(
    em: EntityManager,
    owner: WebhookOwner,
    first: number,
    after?: string | null,
  ): Promise<{ endpoints: WebhookEndpoint[]; hasMore: boolean }> {
    if (!Number.isInteger(first) || first < 1 || first > MAX_PAGE_SIZE)
      throw invalid('first', `must be an integer from 1 to ${MAX_PAGE_SIZE}`);
    const primary = this.primaryOf(owner);
    const scope = scopeOf(owner);
    let where: Record<string, unknown> = scope;
    const head = !after && primary ? [primary] : [];
    if (after && !(primary && after === primary.id)) {
      const cursor = await em.findOne(WebhookEndpointEntity, { ...scope, id: after });
      if (!cursor) throw invalid('after', 'is not a webhook endpoint of this caller');
      where = {
        ...scope,
        $or: [{ createdAt: { $gt: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { $gt: cursor.id } }],
      };
    }
    const rows = await em.find(WebhookEndpointEntity, where, {
      orderBy: { createdAt: 'asc', id: 'asc' },
      limit: first + 1 - head.length,
    });
    const all = [...head, ...rows.map(toWebhookEndpoint)];
    return { endpoints: all.slice(0, first), hasMore: all.length > first };
  }

  async create(
    em: EntityManager,
    owner: WebhookOwner,
    input: CreateWebhookEndpointInput,
    by: AuditedBy,
  ): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
    const valid = parseInput(createEndpointRules(this.targets(), owner.audience), input);
    const livemode = endpointWorld(owner, valid.mode);
    const secret = newSecret('whsec_');
    return em.transactional(async (tx) => {
      const count = await tx.count(WebhookEndpointEntity, { audienceId: owner.audienceId, livemode });
      if (count >= MAX_ENDPOINTS)
        throw new GatewayError(
          'WEBHOOK_ENDPOINT_LIMIT_REACHED',
          `at most ${MAX_ENDPOINTS} endpoints besides the primary one`,
        );
      const now = new Date();
      const endpoint = tx.create(WebhookEndpointEntity, {
        id: newId('webhookEndpoint'),
        audienceId: owner.audienceId,
        livemode,
        url: valid.url,
        enabledEvents: valid.enabledEvents,
        description: valid.description,
        status: 'ENABLED',
        secretSealed: sealSecret(secret, this.settings.platformSecret),
        createdAt: now,
        updatedAt: now,
      });
      const changes = { ...createdWith(endpointAuditFields(endpoint)), secret: SECRET_ISSUED };
      audit.record(
        tx,
        { actor: by.actor, action: 'webhook_endpoint.created', target: endpoint.id, changes },
        by.logger,
      );
      return { endpoint: toWebhookEndpoint(endpoint), secret };
    });
  }

  async update(
    em: EntityManager,
    owner: WebhookOwner,
    id: string,
    input: UpdateWebhookEndpointInput,
    by: AuditedBy,
  ): Promise<WebhookEndpoint> {
    this.refusePrimary(id, 'changes with the webhook_url of its owner');
    const changes = parseInput(updateEndpointRules(this.targets(), owner.audience), stripUnset(input));
    return em.transactional(async (tx) => {
      const endpoint = await this.row(tx, owner, id);
      const before = endpointAuditFields(endpoint);
      if (changes.url !== undefined) endpoint.url = changes.url;
      if (changes.enabledEvents !== undefined) endpoint.enabledEvents = changes.enabledEvents;
      if (changes.description !== undefined) endpoint.description = changes.description;
      if (changes.status !== undefined) endpoint.status = changes.status;
      const changed = changesBetween(before, endpointAuditFields(endpoint));
      audit.record(
        tx,
        { actor: by.actor, action: 'webhook_endpoint.updated', target: id, changes: changed },
        by.logger,
      );
      return toWebhookEndpoint(endpoint);
    });
  }

  /** Its deliveries stay in the log; those still pending fail at their next attempt (the endpoint is gone). */
  async delete(em: EntityManager, owner: WebhookOwner, id: string, by: AuditedBy): Promise<void> {
    this.refusePrimary(id, 'goes away when its owner removes the webhook_url');
    await em.transactional(async (tx) => {
      const endpoint = await this.row(tx, owner, id);
      const changes = {
        ...Object.fromEntries(
          Object.entries(endpointAuditFields(endpoint)).map(([field, from]) => [field, { from, to: null }]),
        ),
        secret: SECRET_REMOVED,
      };
      await tx.nativeDelete(WebhookEndpointEntity, { id: endpoint.id });
      audit.record(tx, { actor: by.actor, action: 'webhook_endpoint.deleted', target: id, changes }, by.logger);
    });
  }

  /**
   * Sends the owner's events of a window (at most MAX_REPLAY_DAYS) to one endpoint again, each
   * with its own event id, in order per aggregate, within bounds (webhook-replay.ts): those whose
   * delivery to it FAILED; with `onlyFailed` false also those it never had, and those it got
   * already only while it is new (added less than NEW_ENDPOINT_HOURS ago). Never one still on its
   * way. A disabled endpoint gets none. The answer says what was skipped, and why nothing was sent.
   */
  async replay(
    em: EntityManager,
    owner: WebhookOwner,
    id: string,
    input: { from: string; to: string; onlyFailed?: boolean | null },
  ): Promise<ReplayOutcome> {
    const range = parseInput(replayRules, input);
    const endpoint = await this.find(em, owner, id);
    if (endpoint.status !== 'ENABLED')
      return { replayed: 0, events: 0, skippedDelivered: 0, skippedPending: 0, reason: 'ENDPOINT_DISABLED' };
    const window = {
      endpoint: {
        id: endpoint.id,
        audienceId: owner.audienceId,
        // Its own world (the same as a merchant's or TPP's credential's; the operator's and banks' vary by endpoint).
        livemode: endpoint.livemode,
        enabledEvents: endpoint.enabledEvents,
      },
      from: range.from,
      to: range.to,
    };
    const newEndpoint = endpoint.createdAt.getTime() > Date.now() - NEW_ENDPOINT_HOURS * 3_600_000;
    const outcome = await replayWindow(em, window, { onlyFailed: range.onlyFailed, newEndpoint });
    if (outcome.replayed > 0) this.wakeDispatcher();
    return outcome;
  }

  private refusePrimary(id: string, why: string): void {
    if (isPrimaryEndpointId(id)) throw invalid('id', `the primary endpoint ${why}`);
  }
}

/** Omitted input fields (undefined) and explicit nulls of non-nullable ones are no change; a null description removes it. */
function stripUnset(input: UpdateWebhookEndpointInput): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(input).filter(
      ([field, value]) => value !== undefined && (value !== null || field === 'description'),
    ),
  );
}
