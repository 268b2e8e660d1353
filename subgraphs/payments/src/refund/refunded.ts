import type { EntityManager } from '@mikro-orm/postgresql';
import { GatewayError, type Currency } from '@gateway/kernel';
import type { PaymentEngine } from '../engine/engine';
import { loadCharge } from '../mandate/mandate.moves';
import { chargeNotFound } from '../mandate/mandate.service';
import { loadSession } from '../session/session.moves';
import { sessionNotFound } from '../session/session.service';
import type { RefundEntity } from './refund.entity';

/**
 * What a refund gives back all or part of, as the refund service reads it: a COMPLETED payment
 * session or a COMPLETED mandate charge of the merchant. Both are movements that paid the merchant's
 * settlement account; a refund pays the same payer back from it. What differs is only where each
 * is found, who may refund it, and where its payer's account is recorded.
 */
export interface Refunded {
  /** How a refusal names it: session, mandate charge. */
  noun: string;
  id: string;
  livemode: boolean;
  amount: bigint;
  amountRefunded: bigint;
  currency: Currency;
  /** How the refund's description names it (the merchant's reference, else the id). */
  label: string;
  /** The refund's columns naming it (exactly one of sessionId and chargeId). */
  owner: Pick<RefundEntity, 'sessionId' | 'chargeId' | 'mandateId'>;
  /** The payer's account the refund credits: the session's recorded at authorization, the charge's debtor. */
  payer(em: EntityManager): Promise<{ bank: string; iban: string }>;
}

/** A refund request's target: its identity in an Idempotency-Key's hash, and how it is read. */
export interface RefundTarget {
  operation: Record<string, string>;
  /** The merchant's own, refundable only once COMPLETED: else the contract's refusal. */
  load(em: EntityManager, merchantId: string): Promise<Refunded>;
}

const notAllowed = (noun: string, id: string, status: string): GatewayError =>
  new GatewayError('REFUND_NOT_ALLOWED', `${noun} ${id} is ${status}: only a COMPLETED ${noun} can be refunded`);

/** POST /payments/sessions/{id}/refunds: another merchant's session is SESSION_NOT_FOUND, like an unknown one. */
export const sessionTarget = (engine: PaymentEngine, sessionId: string): RefundTarget => ({
  operation: { operation: 'refundPaymentSession', sessionId },
  async load(em, merchantId) {
    const session = await loadSession(em, sessionId);
    if (!session || session.merchantId !== merchantId) throw sessionNotFound(sessionId);
    if (session.status !== 'COMPLETED') throw notAllowed('session', sessionId, session.status);
    return {
      noun: 'session',
      id: session.id,
      livemode: session.livemode,
      amount: session.amount,
      amountRefunded: session.amountRefunded,
      currency: session.currency,
      label: session.reference ?? session.id,
      owner: { sessionId, chargeId: null, mandateId: null },
      async payer(tx) {
        const authorized = await engine.authorization(tx, sessionId);
        if (!authorized || !session.debtorBank)
          throw new GatewayError('INTERNAL_ERROR', `session ${sessionId} is COMPLETED without the payer's account`);
        return { bank: session.debtorBank, iban: authorized.debtorIban };
      },
    };
  },
});

/**
 * POST /recurring/mandates/{mandate_id}/charges/{charge_id}/refunds: a charge of another merchant,
 * or of another mandate, is MANDATE_CHARGE_NOT_FOUND, like an unknown one.
 */
export const chargeTarget = (mandateId: string, chargeId: string): RefundTarget => ({
  operation: { operation: 'refundMandateCharge', mandateId, chargeId },
  load: async (em, merchantId) => {
    const charge = await ownCharge(em, merchantId, mandateId, chargeId);
    if (charge.status !== 'COMPLETED') throw notAllowed('mandate charge', chargeId, charge.status);
    return {
      noun: 'mandate charge',
      id: charge.id,
      livemode: charge.livemode,
      amount: charge.amount,
      amountRefunded: charge.amountRefunded,
      currency: charge.currency,
      label: charge.reference,
      owner: { sessionId: null, chargeId, mandateId },
      payer: () => Promise.resolve({ bank: charge.debtorBank, iban: charge.debtorIban }),
    };
  },
});

/** A charge of `mandateId` that `merchantId` may see (any for an operator, null): else MANDATE_CHARGE_NOT_FOUND. */
export async function ownCharge(em: EntityManager, merchantId: string | null, mandateId: string, chargeId: string) {
  const charge = await loadCharge(em, chargeId);
  if (!charge || charge.mandateId !== mandateId || (merchantId !== null && charge.merchantId !== merchantId))
    throw chargeNotFound(chargeId);
  return charge;
}
