import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { merchantLivemode } from '@gateway/kernel';
import { pageInfoOf, requirePrincipal, type SubgraphContext } from '@gateway/federation';
import { MetadataEntryInput } from '../metadata/metadata.input';
import { MetadataEntry, toMetadataEntries } from '../metadata/metadata.type';
import { CreatePaymentSessionInput, PaymentSessionFilter } from './session.input';
import { sessionNotFound, type SessionService } from './session.service';
import { PaymentSession, PaymentSessionConnection, toPaymentSession } from './session.type';

export function createSessionResolver(service: SessionService) {
  @Resolver(() => PaymentSession)
  class SessionResolver {
    @Mutation(() => PaymentSession, {
      description:
        "Creates a payment session (the merchant key; POST /payments/sessions). The destination is resolved now, against its bank's limits. " +
        'With an idempotencyKey, the same key and request within 24 hours return the first answer; another request with that key is refused ' +
        '(IDEMPOTENCY_KEY_REUSED), as is one while the first still runs (IDEMPOTENCY_KEY_IN_USE). ' +
        'Errors: VALIDATION_ERROR, ALIAS_NOT_FOUND, ALIAS_INACTIVE, BANK_NOT_PARTICIPATING, AMOUNT_TOO_LOW, AMOUNT_TOO_HIGH, ' +
        "CURRENCY_MISMATCH (the payee's core says the account is held in another currency; nothing is written).",
    })
    async createPaymentSession(
      @Arg('input', { description: "Amount, currency, destination and the merchant's details." })
      input: CreatePaymentSessionInput,
      @Arg('idempotencyKey', () => String, {
        nullable: true,
        description: 'The Idempotency-Key header: 1-255 printable characters, scoped to the merchant.',
      })
      idempotencyKey: string | null,
      @Ctx() context: SubgraphContext,
    ): Promise<PaymentSession> {
      const merchant = requirePrincipal(context, ['merchant'], 'INVALID_API_KEY');
      const session = await service.create(
        context.em,
        { id: merchant.id, livemode: merchantLivemode(merchant) },
        input,
        idempotencyKey,
        context.requestId,
      );
      context.logger.info({ session: session.id, merchant: merchant.id }, 'payment session created');
      return session;
    }

    @Mutation(() => PaymentSession, {
      description:
        'Ends a PENDING session at once (the merchant key; POST /payments/sessions/{id}/expire): EXPIRED, payment.expired sent, ' +
        'the checkout page shows it ended and can no longer pay it. Errors: SESSION_NOT_FOUND, SESSION_NOT_PENDING (it is being paid or already ended).',
    })
    async expirePaymentSession(
      @Arg('id', () => ID, { description: 'Session id (ops_…).' }) id: string,
      @Ctx() context: SubgraphContext,
    ): Promise<PaymentSession> {
      const merchant = requirePrincipal(context, ['merchant'], 'INVALID_API_KEY');
      const session = await service.expire(context.em, merchant.id, id);
      context.logger.info({ session: id, merchant: merchant.id }, 'payment session ended by its merchant');
      return session;
    }

    @Query(() => PaymentSession, {
      description:
        "A session by id: the merchant's own (another merchant's is SESSION_NOT_FOUND), any for an operator, or its payer's (X-Session-Token of that session).",
    })
    async paymentSession(
      @Arg('id', () => ID, { description: 'Session id (ops_…).' }) id: string,
      @Ctx() context: SubgraphContext,
    ): Promise<PaymentSession> {
      const principal = requirePrincipal(context, ['merchant', 'admin', 'session'], 'INVALID_API_KEY');
      // The payer's token opens its own session only (the checkout page's live status subscription).
      if (principal.kind === 'session' && principal.id !== id) throw sessionNotFound(id);
      return toPaymentSession(
        await service.findOwn(context.em, principal.kind === 'merchant' ? principal.id : null, id),
      );
    }

    @Query(() => PaymentSessionConnection, {
      description:
        "The merchant's sessions, newest first, in pages (GET /payments/sessions), filtered by status, created range, reference, amount range and one metadata key=value.",
    })
    async paymentSessions(
      @Arg('first', () => Int, { nullable: true, description: 'Page size, 1-100 (default 20).' }) first: number | null,
      @Arg('after', () => String, {
        nullable: true,
        description: 'endCursor of the previous page (a session id of this filtered list).',
      })
      after: string | null,
      @Arg('filter', () => PaymentSessionFilter, {
        nullable: true,
        description: 'Which sessions to keep; bad values are VALIDATION_ERROR naming the field.',
      })
      filter: PaymentSessionFilter | null,
      @Ctx() context: SubgraphContext,
    ): Promise<PaymentSessionConnection> {
      const merchant = requirePrincipal(context, ['merchant'], 'INVALID_API_KEY');
      const page = await service.list(context.em, merchant.id, { first, after, filter });
      const edges = page.sessions.map((session) => ({ cursor: session.id, node: toPaymentSession(session) }));
      return {
        edges,
        pageInfo: pageInfoOf(edges, page.hasMore),
      };
    }

    @Mutation(() => PaymentSession, {
      description:
        'Merges metadata into a session of the merchant (PATCH /payments/sessions/{id}): keys given are set, a key given "" is removed, others stay. ' +
        'Errors: SESSION_NOT_FOUND, VALIDATION_ERROR (past 20 keys, a key over 40 or a value over 500 characters; nothing changes).',
    })
    async updatePaymentSessionMetadata(
      @Arg('id', () => ID, { description: 'Session id (ops_…).' }) id: string,
      @Arg('metadata', () => [MetadataEntryInput], { description: 'The keys to set or remove ("").' })
      metadata: MetadataEntryInput[],
      @Ctx() context: SubgraphContext,
    ): Promise<PaymentSession> {
      const merchant = requirePrincipal(context, ['merchant'], 'INVALID_API_KEY');
      return service.updateMetadata(context.em, merchant.id, id, metadata);
    }

    @FieldResolver(() => [MetadataEntry], {
      description:
        "The merchant's own key-value pairs, in key order: its merchant's and an operator's to see, never the payer's (FORBIDDEN).",
    })
    metadata(@Root() session: PaymentSession, @Ctx() context: SubgraphContext): MetadataEntry[] {
      requirePrincipal(context, ['merchant', 'admin'], 'INVALID_API_KEY');
      return toMetadataEntries(session.metadata);
    }
  }
  return SessionResolver;
}
