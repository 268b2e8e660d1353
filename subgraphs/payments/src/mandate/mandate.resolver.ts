import {
  Arg,
  Ctx,
  Directive,
  FieldResolver,
  ID,
  Int,
  Mutation,
  Query,
  Resolver,
  Root,
  Subscription,
} from 'type-graphql';
import { CORE_CALL_COST, pageInfoOf, requirePrincipal, type SubgraphContext } from '@gateway/federation';
import { GatewayError } from '@gateway/kernel';
import { MetadataEntryInput } from '../metadata/metadata.input';
import { ChargeMandateInput, CreateMandateInput, MandateChargeFilter, MandateFilter } from './mandate.input';
import { mandateNotFound, type MandateService } from './mandate.service';
import {
  Mandate,
  MandateChargeConnection,
  MandateCharge,
  MandateConfirmationResult,
  MandateConfirmationView,
  MandateConnection,
  MandateInterval,
  MandateStatus,
  toMandate,
  toMandateCharge,
} from './mandate.type';
import { bankReference } from '../bank/bank.type';
import { otpAttemptsLeft } from '../payer-otp/payer-otp';

const ERRORS_CHARGE =
  'Errors: MANDATE_NOT_FOUND, MANDATE_NOT_ACTIVE (not ACTIVE: pending, cancelled or failed), MANDATE_LIMIT_EXCEEDED (above the amount, or the period already charged: by a charge not FAILED, or FAILED with CBS_OUTCOME_UNKNOWN until an operator has had the money given back), ' +
  "MANDATE_NOT_STARTED (before startDate), BANK_NOT_PARTICIPATING (the customer's or the merchant's bank suspended: nothing is charged and the period stays chargeable), " +
  "CURRENCY_MISMATCH (the customer's account or the settlement_iban is held in another currency: nothing is charged), " +
  'VALIDATION_ERROR, IDEMPOTENCY_KEY_REUSED, IDEMPOTENCY_KEY_IN_USE.';

export function createMandateResolver(service: MandateService) {
  @Resolver(() => Mandate)
  class MandateResolver {
    @Mutation(() => Mandate, {
      description:
        'Creates a mandate PENDING_CONFIRMATION (the merchant key; POST /recurring/mandates): the customer alias is resolved now; the merchant needs a settlement_iban. ' +
        'The customer confirms at confirmUrl. With an idempotencyKey the same request within 24 hours answers the same mandate. ' +
        'Errors: VALIDATION_ERROR (settlement_iban when the merchant has none), ALIAS_NOT_FOUND, ALIAS_INACTIVE, BANK_NOT_PARTICIPATING, IDEMPOTENCY_KEY_REUSED, IDEMPOTENCY_KEY_IN_USE, ' +
        "CURRENCY_MISMATCH (the customer's account or the settlement_iban is held in another currency; nothing is written).",
    })
    async createMandate(
      @Arg('input', { description: 'The mandate.' }) input: CreateMandateInput,
      @Arg('idempotencyKey', () => String, {
        nullable: true,
        description: 'The Idempotency-Key header: 1-255 printable characters, scoped to the merchant.',
      })
      idempotencyKey: string | null,
      @Ctx() context: SubgraphContext,
    ): Promise<Mandate> {
      const merchant = requirePrincipal(context, ['merchant'], 'INVALID_API_KEY');
      return toMandate(await service.create(context.em, merchant.id, input, idempotencyKey, context.requestId));
    }

    @Query(() => Mandate, {
      description: "A mandate: the merchant's own (another's is MANDATE_NOT_FOUND), any for an operator.",
    })
    async mandate(
      @Arg('id', () => ID, { description: 'Mandate id (mdt_…).' }) id: string,
      @Ctx() context: SubgraphContext,
    ): Promise<Mandate> {
      const principal = requirePrincipal(context, ['merchant', 'admin'], 'INVALID_API_KEY');
      return toMandate(await service.findOwn(context.em, principal.kind === 'merchant' ? principal.id : null, id));
    }

    @Query(() => MandateConnection, {
      description:
        "The merchant's mandates, newest first, in pages (GET /recurring/mandates), filtered by status, created range and one metadata key=value.",
    })
    async mandates(
      @Arg('first', () => Int, { nullable: true, description: 'Page size, 1-100 (default 20).' }) first: number | null,
      @Arg('after', () => String, {
        nullable: true,
        description: 'endCursor of the previous page (a mandate id of this filtered list).',
      })
      after: string | null,
      @Arg('filter', () => MandateFilter, {
        nullable: true,
        description: 'Which mandates to keep; bad values are VALIDATION_ERROR naming the field.',
      })
      filter: MandateFilter | null,
      @Ctx() context: SubgraphContext,
    ): Promise<MandateConnection> {
      const merchant = requirePrincipal(context, ['merchant'], 'INVALID_API_KEY');
      const page = await service.list(context.em, merchant.id, { first, after, filter });
      const edges = page.mandates.map((mandate) => ({ cursor: mandate.id, node: toMandate(mandate) }));
      return { edges, pageInfo: pageInfoOf(edges, page.hasMore) };
    }

    @Query(() => MandateConfirmationView, {
      description:
        'What the confirmation page shows (public: the mandate id is the capability). Error: MANDATE_NOT_FOUND.',
    })
    async mandateConfirmation(
      @Arg('id', () => ID, { description: 'Mandate id (mdt_…).' }) id: string,
      @Ctx() context: SubgraphContext,
    ): Promise<MandateConfirmationView> {
      const { mandate, merchantName } = await service.confirmationView(context.em, id);
      return {
        mandateId: mandate.id,
        status: MandateStatus[mandate.status],
        merchantName,
        amount: Number(mandate.amount),
        currency: mandate.currency,
        interval: mandate.interval as MandateInterval,
        description: mandate.description,
        startDate: mandate.startDate,
        customerAlias: mandate.customerAlias,
        customerBank: bankReference(mandate.customerBank),
        otpAttemptsLeft: mandate.status === 'PENDING_CONFIRMATION' ? otpAttemptsLeft(mandate.otpFailures) : 0,
        livemode: mandate.livemode,
      };
    }

    @Directive(CORE_CALL_COST)
    @Mutation(() => MandateConfirmationResult, {
      description:
        "The customer confirms (public; POST /recurring/mandates/{id}/confirm): the OTP is checked by the customer's bank; the acceptance (time, IP address, user agent) is recorded. " +
        'The same confirmation sent again once ACTIVE answers ACTIVE. Errors: OTP_INVALID (the third fails the mandate), RATE_LIMITED (five refused OTPs for the customer from this client within 15 minutes, or thirty from all clients within 5), ' +
        'MANDATE_NOT_FOUND, MANDATE_NOT_PENDING_CONFIRMATION, CBS_TIMEOUT, CBS_ERROR, VALIDATION_ERROR.',
    })
    async confirmMandate(
      @Arg('id', () => ID, { description: 'Mandate id (mdt_…).' }) id: string,
      @Arg('otp', { description: 'The one-time password from the customer’s bank.' }) otp: string,
      @Arg('userAgent', () => String, {
        nullable: true,
        description: "The customer's browser (User-Agent), recorded as evidence.",
      })
      userAgent: string | null,
      @Ctx() context: SubgraphContext,
    ): Promise<MandateConfirmationResult> {
      const mandate = await service.confirm(
        context.em,
        id,
        { otp },
        { ip: context.principal.ip ?? null, userAgent },
        context.requestId,
      );
      return { mandateId: mandate.id, status: MandateStatus[mandate.status] };
    }

    @Mutation(() => Mandate, {
      description:
        'Cancels a mandate (its merchant, or an operator; DELETE /recurring/mandates/{id}): CANCELLED, charges refused afterwards. Again: the same answer. Errors: MANDATE_NOT_FOUND, MANDATE_NOT_ACTIVE (FAILED).',
    })
    async cancelMandate(
      @Arg('id', () => ID, { description: 'Mandate id (mdt_…).' }) id: string,
      @Ctx() context: SubgraphContext,
    ): Promise<Mandate> {
      const principal = requirePrincipal(context, ['merchant', 'admin'], 'INVALID_API_KEY');
      return toMandate(await service.cancel(context.em, principal.kind === 'merchant' ? principal.id : null, id));
    }

    @Mutation(() => Mandate, {
      description:
        "The customer's bank revokes a mandate of its customer (its bank key; POST /recurring/mandates/{id}/revoke), for the customer or on its own account: CANCELLED with revokedBy. " +
        "Errors: MANDATE_NOT_FOUND (also another bank's customer's), MANDATE_NOT_ACTIVE (FAILED), VALIDATION_ERROR.",
    })
    async revokeMandate(
      @Arg('id', () => ID, { description: 'Mandate id (mdt_…).' }) id: string,
      @Arg('revokedBy', { description: 'customer (the customer asked their bank) or bank.' }) revokedBy: string,
      @Ctx() context: SubgraphContext,
    ): Promise<Mandate> {
      const bank = requirePrincipal(context, ['bank'], 'INVALID_BANK_KEY');
      return toMandate(await service.revoke(context.em, bank.id, id, { revokedBy }));
    }

    @Directive(CORE_CALL_COST)
    @Mutation(() => MandateCharge, {
      description: `Charges an ACTIVE mandate for the current interval period (the merchant key; POST /recurring/mandates/{id}/charge), executed by the payment engine without an OTP. ${ERRORS_CHARGE}`,
    })
    async chargeMandate(
      @Arg('id', () => ID, { description: 'Mandate id (mdt_…).' }) id: string,
      @Arg('input', { description: 'Amount and reference.' }) input: ChargeMandateInput,
      @Arg('idempotencyKey', () => String, {
        nullable: true,
        description: 'The Idempotency-Key header: 1-255 printable characters, scoped to the merchant.',
      })
      idempotencyKey: string | null,
      @Ctx() context: SubgraphContext,
    ): Promise<MandateCharge> {
      const merchant = requirePrincipal(context, ['merchant'], 'INVALID_API_KEY');
      return toMandateCharge(
        await service.charge(context.em, merchant.id, id, input, idempotencyKey, context.requestId),
      );
    }

    @Mutation(() => Mandate, {
      description:
        "Test mode only (mk_test_ keys): moves this mandate's own clock forward by `days`, like Stripe's test clocks, so a next period can be charged without waiting. " +
        'Errors: FORBIDDEN (live mode), MANDATE_NOT_FOUND, VALIDATION_ERROR.',
    })
    async advanceMandateTestClock(
      @Arg('id', () => ID, { description: 'Mandate id (mdt_…).' }) id: string,
      @Arg('days', () => Int, { description: 'Days to move forward, 1 to 3660.' }) days: number,
      @Ctx() context: SubgraphContext,
    ): Promise<Mandate> {
      const merchant = requirePrincipal(context, ['merchant'], 'INVALID_API_KEY');
      return toMandate(await service.advanceClock(context.em, merchant.id, merchant.scopes?.[0], id, { days }));
    }

    @Mutation(() => Mandate, {
      description:
        'Merges metadata into a mandate of the merchant (PATCH /recurring/mandates/{id}): keys given are set, a key given "" is removed, others stay. ' +
        'Errors: MANDATE_NOT_FOUND, VALIDATION_ERROR (past 20 keys, a key over 40 or a value over 500 characters; nothing changes).',
    })
    async updateMandateMetadata(
      @Arg('id', () => ID, { description: 'Mandate id (mdt_…).' }) id: string,
      @Arg('metadata', () => [MetadataEntryInput], { description: 'The keys to set or remove ("").' })
      metadata: MetadataEntryInput[],
      @Ctx() context: SubgraphContext,
    ): Promise<Mandate> {
      const merchant = requirePrincipal(context, ['merchant'], 'INVALID_API_KEY');
      return toMandate(await service.updateMetadata(context.em, merchant.id, id, metadata));
    }

    @Mutation(() => MandateCharge, {
      description:
        'Merges metadata into a charge of the merchant (PATCH /recurring/mandates/{mandate_id}/charges/{charge_id}): keys given are set, a key given "" is removed, others stay. ' +
        'Errors: MANDATE_CHARGE_NOT_FOUND (also another mandate’s when mandateId is given), VALIDATION_ERROR (past 20 keys, a key over 40 or a value over 500 characters; nothing changes).',
    })
    async updateMandateChargeMetadata(
      @Arg('id', () => ID, { description: 'Charge id (chg_…).' }) id: string,
      @Arg('metadata', () => [MetadataEntryInput], { description: 'The keys to set or remove ("").' })
      metadata: MetadataEntryInput[],
      @Arg('mandateId', () => ID, { nullable: true, description: 'When given, the charge must be of this mandate.' })
      mandateId: string | null,
      @Ctx() context: SubgraphContext,
    ): Promise<MandateCharge> {
      const merchant = requirePrincipal(context, ['merchant'], 'INVALID_API_KEY');
      return toMandateCharge(await service.updateChargeMetadata(context.em, merchant.id, id, metadata, mandateId));
    }

    @FieldResolver(() => String, {
      nullable: true,
      description:
        'YYYY-MM-DD: from when the next charge may be made (null once CANCELLED or FAILED). Test clocks move it.',
    })
    nextChargeDate(@Root() mandate: Mandate, @Ctx() context: SubgraphContext): Promise<string | null> {
      return service.nextChargeDate(context.em, mandate.entity);
    }

    @FieldResolver(() => MandateChargeConnection, {
      description:
        'The charges of this mandate, newest first, in pages (GET /recurring/mandates/{id}/charges), filtered by status, created range, reference and one metadata key=value.',
    })
    async charges(
      @Root() mandate: Mandate,
      @Arg('first', () => Int, { nullable: true, description: 'Page size, 1-100 (default 20).' }) first: number | null,
      @Arg('after', () => String, {
        nullable: true,
        description: 'endCursor of the previous page (a charge id of this filtered list).',
      })
      after: string | null,
      @Arg('filter', () => MandateChargeFilter, {
        nullable: true,
        description: 'Which charges to keep; bad values are VALIDATION_ERROR naming the field.',
      })
      filter: MandateChargeFilter | null,
      @Ctx() context: SubgraphContext,
    ): Promise<MandateChargeConnection> {
      const page = await service.charges(context.em, mandate.entity, { first, after, filter });
      const edges = page.charges.map((charge) => ({ cursor: charge.id, node: toMandateCharge(charge) }));
      return { edges, pageInfo: pageInfoOf(edges, page.hasMore) };
    }

    @Subscription(() => Mandate, {
      description:
        "Every status change of a mandate, starting with its current state, until CANCELLED or FAILED (graphql-ws on the router's /graphql; the merchant's key). " +
        'Any field may be selected, including customerBank { displayName }; each message is resolved with the subscriber’s credentials.',
      subscribe: () => {
        throw new GatewayError('VALIDATION_ERROR', 'subscribe through the router (graphql-ws on /graphql)');
      },
    })
    mandateUpdated(@Arg('id', () => ID, { description: 'Mandate id (mdt_…).' }) _id: string): Mandate {
      throw mandateNotFound(_id);
    }
  }
  return MandateResolver;
}
