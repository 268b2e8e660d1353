import type { EntityManager } from '@mikro-orm/postgresql';
import type { Directory } from '@gateway/federation';
import { GatewayError, newId, parseInput, requestHash, type Principal } from '@gateway/kernel';
import { ConsentAccountEntity } from '../account/consent-account.entity';
import { orderIdempotency } from '../payment-order/order-idempotency';
import { assertWithinLimits } from '../payment-order/payment-order.service';
import type { CreateVrpPaymentInput } from './vrp.input';
import { createVrpPaymentRules } from './vrp.rules';
import type { VrpConsentService } from './vrp-consent.service';
import { judgePayment } from './vrp-limits';
import { VrpPaymentEntity } from './vrp-payment.entity';
import { acceptVrpPayment, loadVrpPayment } from './vrp-payment.moves';
import { controlParametersOf, loadTerms, readUsage } from './vrp-terms';

/** One wording for an unknown id and another consent's or TPP's payment. */
export const vrpPaymentNotFound = (id: string): GatewayError =>
  new GatewayError('VRP_PAYMENT_NOT_FOUND', `no VRP payment ${id}`);

/** How often a payment judged against usage that moved meanwhile is judged again before giving up (503). */
const ACCEPT_ATTEMPTS = 8;

/**
 * Payments under a VRP consent (issue 51): no SCA (the consent is the customer's authorisation),
 * accepted only within the validity window and every control parameter, judged against what the
 * consent's payments not FAILED used in each current period and reserved by moving the consent's
 * version in the transaction that writes the payment (vrp-payment.moves.ts). A refusal writes
 * nothing and happens before any core call. The engine moves the money (movement.requested).
 */
export class VrpPaymentService {
  constructor(
    private readonly consents: VrpConsentService,
    private readonly directory: Directory,
  ) {}

  async create(
    em: EntityManager,
    principal: Principal,
    input: CreateVrpPaymentInput,
    idempotencyKey?: string | null,
    requestId?: string,
  ): Promise<VrpPaymentEntity> {
    const request = parseInput(createVrpPaymentRules, JSON.parse(JSON.stringify(input)));
    const consent = await this.consents.vrpConsentOfToken(em, principal, request.consentId);
    if (idempotencyKey != null) {
      const claim = await orderIdempotency.begin(
        em,
        consent.tppId,
        idempotencyKey,
        requestHash({ vrp: true, consent: consent.id, ...request }),
      );
      if (claim.kind === 'replay') return (await loadVrpPayment(em.fork(), claim.paymentOrderId))!;
    }
    try {
      const terms = await loadTerms(em, consent.id);
      const payer = await em.findOne(ConsentAccountEntity, { consentId: consent.id });
      if (!terms || !payer) throw new GatewayError('UNAUTHORIZED', `consent ${consent.id} has no payer account`);
      const amount = BigInt(request.amount);
      const [debtorBank, creditorBank] = await Promise.all([
        this.directory.bank({ handle: payer.bankHandle }, requestId),
        this.directory.bank({ handle: terms.creditorBank }, requestId),
      ]);
      for (const bank of new Set([debtorBank, creditorBank])) assertWithinLimits(bank, request.amount);
      const parameters = controlParametersOf(terms);
      for (let attempt = 0; attempt < ACCEPT_ATTEMPTS; attempt += 1) {
        const now = new Date();
        const { version, usage } = await readUsage(em, terms, now);
        const verdict = judgePayment(
          parameters,
          now,
          amount,
          usage.map((period) => period.used),
        );
        if (verdict.kind === 'outside_validity') throw new GatewayError('VRP_OUTSIDE_VALIDITY', verdict.detail);
        if (verdict.kind === 'limit_exceeded')
          throw new GatewayError('VRP_LIMIT_EXCEEDED', `${verdict.limit}: ${verdict.detail}`);
        const id = newId('vrpPayment');
        const accepted = await em.fork().transactional(async (tx) => {
          const payment = await acceptVrpPayment(
            tx,
            {
              id,
              consentId: consent.id,
              tppId: consent.tppId,
              livemode: consent.livemode,
              debtorIban: payer.iban,
              debtorBank: debtorBank.handle,
              creditorIban: terms.creditorIban,
              creditorBank: creditorBank.handle,
              amount,
              currency: terms.currency,
              reference: request.reference,
              requestId: requestId ?? null,
            },
            version,
            now,
          );
          if (payment && idempotencyKey != null)
            await orderIdempotency.complete(tx, consent.tppId, idempotencyKey, payment.id);
          return payment;
        });
        if (accepted) return accepted;
      }
      throw new GatewayError(
        'SERVICE_UNAVAILABLE',
        `consent ${consent.id}: too many payments at once to judge this one against its limits; send it again`,
      );
    } catch (error) {
      if (idempotencyKey != null) await orderIdempotency.release(em, consent.tppId, idempotencyKey);
      throw error;
    }
  }

  /** A payment for its own consent's access token, or for its TPP's token; anything else VRP_PAYMENT_NOT_FOUND. */
  async findForCaller(em: EntityManager, principal: Principal, id: string): Promise<VrpPaymentEntity> {
    const payment = await loadVrpPayment(em, id);
    const allowed =
      payment &&
      ((principal.kind === 'ob_token' && principal.consentId === payment.consentId) ||
        (principal.kind === 'tpp' && principal.id === payment.tppId));
    if (!allowed) throw vrpPaymentNotFound(id);
    return payment;
  }
}
