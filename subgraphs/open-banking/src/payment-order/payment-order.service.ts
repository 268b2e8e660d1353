import type { EntityManager } from '@mikro-orm/postgresql';
import { GatewayError, newId, parseInput, type Currency, type Principal, requestHash } from '@gateway/kernel';
import type { BankRouting, Directory } from '@gateway/federation';
import type { AccountService } from '../account/account.service';
import { dataCallConsent } from '../account/data-call';
import type { BankCapabilitiesClient } from '../banks/bank-capabilities';
import { orderIdempotency } from './order-idempotency';
import { PaymentOrderEntity } from './payment-order.entity';
import type { CreatePaymentOrderInput } from './payment-order.input';
import { createPaymentOrder, loadPaymentOrder } from './payment-order.moves';
import { createPaymentOrderRules, type CreatePaymentOrderRequest } from './payment-order.rules';
import { scaReasonFor } from './sca-exemption';

export interface PaymentOrderSettings {
  /** Base of sca_url. */
  publicBaseUrl: string;
}

/** One wording for an unknown id and another TPP's or consent's order, so the two cannot be told apart. */
export const paymentOrderNotFound = (id: string): GatewayError =>
  new GatewayError('PAYMENT_ORDER_NOT_FOUND', `no payment order ${id}`);

/**
 * The TPP's side of payment orders: creation (consent and scope, consented source account,
 * destination routed by its institution code, banks' limits, the source bank's SCA exemption
 * limit and its cumulative caps per consent, Idempotency-Key) and reads. Execution is the payments engine's (movement.requested,
 * written with the order); outcomes come back through movement-outcomes.ts.
 */
export class PaymentOrderService {
  constructor(
    readonly settings: PaymentOrderSettings,
    private readonly directory: Directory,
    private readonly banks: BankCapabilitiesClient,
    private readonly accounts: AccountService,
  ) {}

  /**
   * Everything is checked before anything is written; then the order, its payment_order.* event,
   * movement.requested when it may execute at once, and the Idempotency-Key's answer commit in
   * one transaction. A refused request writes nothing and releases its key.
   */
  async create(
    em: EntityManager,
    principal: Principal,
    input: CreatePaymentOrderInput,
    idempotencyKey?: string | null,
    requestId?: string,
  ): Promise<PaymentOrderEntity> {
    const consent = await dataCallConsent(em, principal, 'payments:write');
    const request = parseInput(createPaymentOrderRules, JSON.parse(JSON.stringify(input)));
    if (idempotencyKey != null) {
      const claim = await orderIdempotency.begin(
        em,
        consent.tppId,
        idempotencyKey,
        requestHash({
          consent: consent.id,
          ...request,
          destination: { type: 'iban', value: request.destination.value.iban },
        }),
      );
      if (claim.kind === 'replay') return (await loadPaymentOrder(em.fork(), claim.paymentOrderId))!;
    }
    try {
      const source = await this.accounts.consentAccount(em, consent.id, request.sourceAccountId);
      if (source.iban === request.destination.value.iban)
        throw new GatewayError('VALIDATION_ERROR', 'destination.value: is the source account itself');
      const creditorBank = await this.routeDestination(request, requestId);
      const debtorBank = await this.directory.bank({ handle: source.bankHandle }, requestId);
      for (const bank of new Set([debtorBank, creditorBank])) assertWithinLimits(bank, request.amount);
      const capabilities = await this.banks.find(debtorBank.handle, requestId);
      const id = newId('paymentOrder');
      return await em.fork().transactional(async (tx) => {
        // Decided in the transaction that writes the order, one order of the consent at a time (sca-exemption.ts).
        const scaRequired =
          (await scaReasonFor(
            tx,
            consent,
            { amount: request.amount, currency: request.currency as Currency },
            capabilities,
          )) !== null;
        const now = new Date();
        const order = createPaymentOrder(
          tx,
          {
            id,
            tppId: consent.tppId,
            consentId: consent.id,
            livemode: consent.livemode,
            sourceAccountId: source.id,
            debtorIban: source.iban,
            debtorBank: debtorBank.handle,
            destinationType: 'iban',
            creditorIban: request.destination.value.iban,
            creditorBank: creditorBank.handle,
            amount: BigInt(request.amount),
            currency: request.currency as Currency,
            description: request.description ?? null,
            scaUrl: scaRequired ? `${this.settings.publicBaseUrl}/ob/sca/${id}` : null,
            requestId: requestId ?? null,
          },
          scaRequired ? 'created_sca_required' : 'created_exempt',
          now,
        );
        if (idempotencyKey != null) await orderIdempotency.complete(tx, consent.tppId, idempotencyKey, id);
        return order;
      });
    } catch (error) {
      if (idempotencyKey != null) await orderIdempotency.release(em, consent.tppId, idempotencyKey);
      throw error;
    }
  }

  /**
   * An order for its own consent's access token, or for its TPP's token; anything else (another
   * consent of the same TPP included) is PAYMENT_ORDER_NOT_FOUND, like an unknown id.
   */
  async findForCaller(em: EntityManager, principal: Principal, id: string): Promise<PaymentOrderEntity> {
    if (principal.kind === 'ob_token') await dataCallConsent(em, principal, 'payments:write');
    const order = await em.findOne(PaymentOrderEntity, { id });
    const allowed =
      order &&
      ((principal.kind === 'ob_token' && principal.consentId === order.consentId) ||
        (principal.kind === 'tpp' && principal.id === order.tppId));
    if (!allowed) throw paymentOrderNotFound(id);
    return order;
  }

  /** The destination IBAN's institution code names the payee's bank; an unknown one does not take part. */
  private async routeDestination(request: CreatePaymentOrderRequest, requestId?: string): Promise<BankRouting> {
    const code = request.destination.value.institutionCode;
    return this.directory.bank({ institutionCode: code }, requestId).catch((error: unknown) => {
      if (error instanceof GatewayError && error.code === 'BANK_NOT_REGISTERED')
        throw new GatewayError('BANK_NOT_PARTICIPATING', `no participating bank with institution code ${code}`);
      throw error;
    });
  }
}

/** The same limits as a session's, applied at both banks: each must accept the movement (payment orders, VRP payments). */
export function assertWithinLimits(bank: BankRouting, amount: number): void {
  if (amount < bank.minAmount)
    throw new GatewayError(
      'AMOUNT_TOO_LOW',
      `amount: ${amount} is below ${bank.handle}'s minimum of ${bank.minAmount}`,
    );
  if (amount > bank.maxAmount)
    throw new GatewayError(
      'AMOUNT_TOO_HIGH',
      `amount: ${amount} is above ${bank.handle}'s maximum of ${bank.maxAmount}`,
    );
}
