import { Arg, Args, Ctx, Directive, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { CORE_CALL_COST, pageInfoOf, requirePrincipal, type SubgraphContext } from '@gateway/federation';
import { merchantLivemode } from '@gateway/kernel';
import { PaymentSession } from '../session/session.type';
import { MetadataEntryInput } from '../metadata/metadata.input';
import { RefundListArgs, RefundMandateChargeInput, RefundPaymentSessionInput } from './refund.input';
import type { RefundService } from './refund.service';
import { Refund, RefundConnection, toRefund } from './refund.type';

const ERRORS_REFUND =
  "Errors: SESSION_NOT_FOUND (also another merchant's), REFUND_NOT_ALLOWED (the session is not COMPLETED), " +
  'REFUND_AMOUNT_EXCEEDED (more than the session amount minus refunds not FAILED; nothing moves), ' +
  "VALIDATION_ERROR (also: the merchant has no settlement_iban), BANK_NOT_PARTICIPATING (its settlement_iban is at no participating bank, or that bank or the payer's is suspended), " +
  'IDEMPOTENCY_KEY_REUSED, IDEMPOTENCY_KEY_IN_USE.';

const ERRORS_CHARGE_REFUND =
  "Errors: MANDATE_CHARGE_NOT_FOUND (also another merchant's, or another mandate's charge), REFUND_NOT_ALLOWED (the charge is not COMPLETED), " +
  'REFUND_AMOUNT_EXCEEDED (more than the charge amount minus refunds not FAILED; nothing moves), ' +
  "VALIDATION_ERROR (also: the merchant has no settlement_iban), BANK_NOT_PARTICIPATING (its settlement_iban is at no participating bank, or that bank or the customer's is suspended), " +
  'IDEMPOTENCY_KEY_REUSED, IDEMPOTENCY_KEY_IN_USE.';

export function createRefundResolver(service: RefundService) {
  @Resolver(() => PaymentSession)
  class RefundResolver {
    @Directive(CORE_CALL_COST)
    @Mutation(() => Refund, {
      description:
        "Refunds all or part of a COMPLETED session (the merchant key; POST /payments/sessions/{id}/refunds): the payment engine moves the amount from the merchant's settlement_iban " +
        "to the payer's account recorded at authorization (same bank internal, cross bank over the rail). Answers the refund after a short wait: COMPLETED, PROCESSING or FAILED " +
        '(failureCode); refund.completed or refund.failed follows by webhook. With an idempotencyKey the same request within 24 hours answers the same refund. ' +
        ERRORS_REFUND,
    })
    async refundPaymentSession(
      @Arg('id', () => ID, { description: 'Session id (ops_…).' }) id: string,
      @Arg('input', () => RefundPaymentSessionInput, {
        nullable: true,
        description: 'Amount (default: all that is left), reason and reference.',
      })
      input: RefundPaymentSessionInput | null,
      @Arg('idempotencyKey', () => String, {
        nullable: true,
        description: 'The Idempotency-Key header: 1-255 printable characters, scoped to the merchant.',
      })
      idempotencyKey: string | null,
      @Ctx() context: SubgraphContext,
    ): Promise<Refund> {
      const merchant = requirePrincipal(context, ['merchant'], 'INVALID_API_KEY');
      return toRefund(
        await service.refund(context.em, merchant.id, id, input ?? {}, idempotencyKey, context.requestId),
      );
    }

    @Directive(CORE_CALL_COST)
    @Mutation(() => Refund, {
      description:
        "Refunds all or part of a COMPLETED mandate charge (the merchant key of the mandate's merchant; POST /recurring/mandates/{mandate_id}/charges/{charge_id}/refunds): " +
        "the payment engine moves the amount from the merchant's settlement_iban back to the customer's account the charge debited, as a session's refund. " +
        'Answers the refund (chargeId and mandateId set, sessionId null) after a short wait: COMPLETED, PROCESSING or FAILED (failureCode); refund.completed or refund.failed ' +
        'follows by webhook, with charge_id. The charge shows amountRefunded. With an idempotencyKey the same request within 24 hours answers the same refund. ' +
        ERRORS_CHARGE_REFUND,
    })
    async refundMandateCharge(
      @Arg('mandateId', () => ID, { description: 'Mandate id (mdt_…).' }) mandateId: string,
      @Arg('chargeId', () => ID, { description: 'Charge id (chg_…), a charge of that mandate.' }) chargeId: string,
      @Arg('input', () => RefundMandateChargeInput, {
        nullable: true,
        description: 'Amount (default: all that is left), reason and reference.',
      })
      input: RefundMandateChargeInput | null,
      @Arg('idempotencyKey', () => String, {
        nullable: true,
        description: 'The Idempotency-Key header: 1-255 printable characters, scoped to the merchant.',
      })
      idempotencyKey: string | null,
      @Ctx() context: SubgraphContext,
    ): Promise<Refund> {
      const merchant = requirePrincipal(context, ['merchant'], 'INVALID_API_KEY');
      return toRefund(
        await service.refundCharge(
          context.em,
          merchant.id,
          mandateId,
          chargeId,
          input ?? {},
          idempotencyKey,
          context.requestId,
        ),
      );
    }

    @Query(() => RefundConnection, {
      description:
        "A mandate charge's refunds, newest first, in pages (GET /recurring/mandates/{mandate_id}/charges/{charge_id}/refunds), filtered by status, created range, reference " +
        "and one metadata key=value: the mandate's merchant's and an operator's to see. Errors: MANDATE_CHARGE_NOT_FOUND (also another merchant's, or another mandate's charge), " +
        'VALIDATION_ERROR naming the field.',
    })
    async mandateChargeRefunds(
      @Arg('mandateId', () => ID, { description: 'Mandate id (mdt_…).' }) mandateId: string,
      @Arg('chargeId', () => ID, { description: 'Charge id (chg_…), a charge of that mandate.' }) chargeId: string,
      @Args() page: RefundListArgs,
      @Ctx() context: SubgraphContext,
    ): Promise<RefundConnection> {
      const principal = requirePrincipal(context, ['merchant', 'admin'], 'INVALID_API_KEY');
      const merchantId = principal.kind === 'merchant' ? principal.id : null;
      const found = await service.listCharge(context.em, merchantId, mandateId, chargeId, page);
      const edges = found.refunds.map((refund) => ({ cursor: refund.id, node: toRefund(refund) }));
      return { edges, pageInfo: pageInfoOf(edges, found.hasMore) };
    }

    @Query(() => Refund, {
      description:
        "A refund (GET /refunds/{id}): the merchant's own (another's is REFUND_NOT_FOUND), any for an operator.",
    })
    async refund(
      @Arg('id', () => ID, { description: 'Refund id (rfd_…).' }) id: string,
      @Ctx() context: SubgraphContext,
    ): Promise<Refund> {
      const principal = requirePrincipal(context, ['merchant', 'admin'], 'INVALID_API_KEY');
      return toRefund(await service.findOwn(context.em, principal.kind === 'merchant' ? principal.id : null, id));
    }

    @Query(() => RefundConnection, {
      name: 'refunds',
      description:
        "The merchant's refunds across its sessions and mandate charges, newest first, in pages (GET /refunds), in the key's world (a test key's test refunds), " +
        'filtered by status, created range, reference and one metadata key=value. Errors: VALIDATION_ERROR naming the field (`after` for a cursor of another list).',
    })
    async merchantRefunds(@Args() page: RefundListArgs, @Ctx() context: SubgraphContext): Promise<RefundConnection> {
      const merchant = requirePrincipal(context, ['merchant'], 'INVALID_API_KEY');
      const owner = { merchantId: merchant.id, livemode: merchantLivemode(merchant) };
      const found = await service.list(context.em, owner, page);
      const edges = found.refunds.map((refund) => ({ cursor: refund.id, node: toRefund(refund) }));
      return { edges, pageInfo: pageInfoOf(edges, found.hasMore) };
    }

    @Mutation(() => Refund, {
      description:
        'Merges metadata into a refund of the merchant (PATCH /refunds/{id}): keys given are set, a key given "" is removed, others stay. ' +
        'Errors: REFUND_NOT_FOUND, VALIDATION_ERROR (past 20 keys, a key over 40 or a value over 500 characters; nothing changes).',
    })
    async updateRefundMetadata(
      @Arg('id', () => ID, { description: 'Refund id (rfd_…).' }) id: string,
      @Arg('metadata', () => [MetadataEntryInput], { description: 'The keys to set or remove ("").' })
      metadata: MetadataEntryInput[],
      @Ctx() context: SubgraphContext,
    ): Promise<Refund> {
      const merchant = requirePrincipal(context, ['merchant'], 'INVALID_API_KEY');
      return toRefund(await service.updateMetadata(context.em, merchant.id, id, metadata));
    }

    @FieldResolver(() => RefundConnection, {
      description:
        "The session's refunds, newest first, in pages (GET /payments/sessions/{id}/refunds), filtered by status, created range, reference and one metadata key=value: " +
        "its merchant's and an operator's to see, not the payer's (FORBIDDEN).",
    })
    async refunds(
      @Root() session: PaymentSession,
      @Args() page: RefundListArgs,
      @Ctx() context: SubgraphContext,
    ): Promise<RefundConnection> {
      // The parent resolver checked the session is this principal's; the reasons are the merchant's own words.
      requirePrincipal(context, ['merchant', 'admin'], 'INVALID_API_KEY');
      const found = await service.list(context.em, { sessionId: session.id }, page);
      const edges = found.refunds.map((refund) => ({ cursor: refund.id, node: toRefund(refund) }));
      return { edges, pageInfo: pageInfoOf(edges, found.hasMore) };
    }
  }
  return RefundResolver;
}
