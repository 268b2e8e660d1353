import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { call, type Client } from './client';
import { Grants } from './grants';
import type { Customer, Merchant, Parties } from './onboarding';
import { between, pick, random } from './random';
import { RefundDriver, THIN_MERCHANT_SHARE } from './refunds';
import { CONCURRENCY, PAYMENTS, SECONDS } from './settings';
import type { SubscriptionSample } from './subscription-sample';

/** Payments made, by kind (printed as is: the keys are the log's). */
export interface Driven {
  same_bank: number;
  cross_bank: number;
  payment_order: number;
  mandate_charge: number;
}

/** The payer's bank is at its net debit cap (net-debit.ts): refused before anything moves, an answer. */
const capRefused = (answer: { status: number; body?: any }): boolean =>
  answer.status === 422 && answer.body?.error?.code === 'NET_DEBIT_CAP_EXCEEDED';

/** Whether this build routes mandates (an older one is driven without mandate charges). */
export async function mandatesRouted(client: Client, rest: string): Promise<boolean> {
  const openApi = await client.ok('GET', `${rest}/openapi.json`);
  return Boolean(
    openApi.paths?.['/recurring/mandates']?.post && openApi.paths?.['/recurring/mandates/{mandate_id}/charge'],
  );
}

/**
 * Drives payments through the public REST API as a merchant and a TPP would: same-bank and
 * cross-bank sessions, payment orders and mandate charges, CHAOS_CONCURRENCY at once, paced over
 * CHAOS_SECONDS; a share of the sessions is refunded once COMPLETED (refunds.ts, beside the
 * payments). Every call retries through the chaos (client.ts); what is still refused is noted.
 */
export class Driver {
  readonly driven: Driven = { same_bank: 0, cross_bank: 0, payment_order: 0, mandate_charge: 0 };
  readonly refused: Record<string, number> = {};
  readonly sessionIds: string[] = [];
  readonly chargeIds: string[] = [];
  readonly orderIds: string[] = [];
  /**
   * Sessions whose authorization was answered 422 NET_DEBIT_CAP_EXCEEDED (the payer's bank at its
   * cap): a final answer, not a failure; the session stays PENDING until it expires and nothing moves.
   */
  readonly capRefusedSessions: string[] = [];
  /** Mandate charges answered 422 NET_DEBIT_CAP_EXCEEDED (nothing charged; the period stays chargeable). */
  capRefusedCharges = 0;
  /** The merchant's refunds; undefined when this build routes none. */
  readonly refunds: RefundDriver | undefined;
  private readonly grants: Grants;
  /** The run's merchant's key (sessions, mandates). */
  private readonly auth: Record<string, string>;
  private started = 0;

  constructor(
    private readonly client: Client,
    private readonly rest: string,
    private readonly parties: Parties,
    private readonly subscriptions: SubscriptionSample,
    readonly withMandates: boolean,
    withRefunds: boolean,
  ) {
    this.grants = new Grants(client, rest, parties.tppToken, (what) => this.note(what));
    this.auth = { authorization: `Bearer ${parties.merchant.key}` };
    this.refunds = withRefunds ? new RefundDriver(client, rest, (what) => this.note(what)) : undefined;
  }

  get total(): number {
    const { driven } = this;
    return driven.same_bank + driven.cross_bank + driven.payment_order + driven.mandate_charge;
  }

  /**
   * Resolves when CHAOS_PAYMENTS were started or CHAOS_SECONDS are over, whichever comes first,
   * and every refund offered meanwhile has its answers.
   */
  async drive(): Promise<void> {
    const begin = Date.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, () => this.worker(begin, begin + SECONDS * 1000)));
    await this.refunds?.settled();
  }

  private async worker(begin: number, deadline: number): Promise<void> {
    while (this.started < PAYMENTS && Date.now() < deadline) {
      const n = this.started++;
      // Paced over CHAOS_SECONDS, so the faults meet payments all along the run.
      const due = begin + (n * SECONDS * 1000) / PAYMENTS;
      if (due > Date.now()) await sleep(due - Date.now());
      await this.one();
    }
  }

  /**
   * One payment of the run's mix: a mandate charge (15 %, when routed), a payment order (15 %), a
   * same-bank (30 %) or a cross-bank (40 %) session. The soak run (scripts/soak) paces these itself.
   */
  async one(): Promise<void> {
    const roll = random();
    if (this.withMandates && roll < 0.15) await this.mandateCharge();
    else if (roll < 0.3) await this.paymentOrder();
    else if (roll < 0.6) await this.session('same_bank');
    else await this.session('cross_bank');
  }

  private note(what: string): void {
    this.refused[what] = (this.refused[what] ?? 0) + 1;
  }

  private get customers(): Customer[] {
    return this.parties.customers;
  }

  private async session(kind: 'same_bank' | 'cross_bank'): Promise<void> {
    const { client, rest } = this;
    const payer = pick(this.customers);
    const payee = pick(
      this.customers.filter(
        (c) => c !== payer && (kind === 'same_bank' ? c.bank === payer.bank : c.bank !== payer.bank),
      ),
    );
    const key = `chaos-${randomBytes(8).toString('hex')}`;
    // Drawn once: a retry sends the same body with the same Idempotency-Key.
    const amount = between(100, 5_000);
    // A share of the sessions is the thin merchant's, all refunded: its refunds soon fail (refunds.ts).
    const thin = this.refunds !== undefined && random() < THIN_MERCHANT_SHARE;
    const merchant: Merchant = thin ? this.parties.thinMerchant : this.parties.merchant;
    const created = await client.retrying('create', () =>
      call(
        'POST',
        `${rest}/payments/sessions`,
        { amount, currency: 'LYD', destination: { type: 'alias', value: payee.alias } },
        { authorization: `Bearer ${merchant.key}`, 'idempotency-key': key },
      ),
    );
    if (created.status !== 201) return this.note(`create ${created.status} ${created.body?.error?.code ?? ''}`.trim());
    const id = created.body.session_id as string;
    this.sessionIds.push(id);
    this.driven[kind] += 1;
    // Watched as the run's merchant, who may not watch another merchant's session.
    if (!thin) this.subscriptions.offer(id);
    const authorized = await client.retrying(
      'authorize',
      () =>
        call('POST', `${rest}/pay/${id}/authorize`, { payer: { type: 'alias', value: payer.alias }, otp: payer.otp }),
      12,
    );
    if (capRefused(authorized)) {
      this.capRefusedSessions.push(id);
      return;
    }
    // A retry after an answer lost to a kill meets the session already moving on: not a refusal.
    const alreadyMoving = authorized.status === 409 && /SESSION_ALREADY/.test(authorized.body?.error?.code ?? '');
    if (authorized.status !== 200 && !alreadyMoving)
      return this.note(`authorize ${authorized.status} ${authorized.body?.error?.code ?? ''}`.trim());
    this.refunds?.offer({ id, amount, payerBank: payer.bank, merchant }, thin ? 1 : undefined);
  }

  private async paymentOrder(): Promise<void> {
    const payer = pick(this.customers);
    const grant = await this.grants.of(payer);
    if (!grant) return;
    const payee = pick(this.customers.filter((c) => c !== payer));
    const key = `chaos-o-${randomBytes(8).toString('hex')}`;
    const amount = between(100, 900);
    const created = await this.client.retrying('order', () =>
      call(
        'POST',
        `${this.rest}/ob/payment-orders`,
        {
          source_account_id: grant.accountId,
          destination: { type: 'iban', value: payee.iban },
          amount,
          currency: 'LYD',
          description: 'chaos order',
        },
        { authorization: `Bearer ${grant.accessToken}`, 'x-consent-id': grant.consentId, 'idempotency-key': key },
      ),
    );
    if (created.status !== 201 && created.status !== 202 && created.status !== 200)
      return this.note(`order ${created.status} ${created.body?.error?.code ?? ''}`.trim());
    this.orderIds.push(created.body.payment_order_id ?? created.body.id);
    this.driven.payment_order += 1;
  }

  private async mandateCharge(): Promise<void> {
    const { client, rest } = this;
    const payer = pick(this.customers);
    const created = await client.retrying('mandate', () =>
      call(
        'POST',
        `${rest}/recurring/mandates`,
        {
          customer_alias: payer.alias,
          amount: 10_000,
          currency: 'LYD',
          interval: 'monthly',
          description: 'Chaos box',
          start_date: new Date().toISOString().slice(0, 10),
        },
        { ...this.auth, 'idempotency-key': `chaos-m-${randomBytes(8).toString('hex')}` },
      ),
    );
    if (created.status !== 201) return this.note(`mandate ${created.status} ${created.body?.error?.code ?? ''}`.trim());
    const mandateId = created.body.mandate_id as string;
    const confirmed = await client.retrying(
      'confirm',
      () => call('POST', `${rest}/recurring/mandates/${mandateId}/confirm`, { otp: payer.otp }),
      6,
    );
    if (confirmed.status !== 200)
      return this.note(`mandate confirm ${confirmed.status} ${confirmed.body?.error?.code ?? ''}`.trim());
    const chargeAmount = between(100, 5_000);
    const charged = await client.retrying('charge', () =>
      call(
        'POST',
        `${rest}/recurring/mandates/${mandateId}/charge`,
        { amount: chargeAmount, reference: `chaos-${mandateId.slice(-6)}` },
        { ...this.auth, 'idempotency-key': `chaos-c-${mandateId}` },
      ),
    );
    if (capRefused(charged)) {
      this.capRefusedCharges += 1;
      return;
    }
    if (charged.status !== 201) return this.note(`charge ${charged.status} ${charged.body?.error?.code ?? ''}`.trim());
    this.chargeIds.push(charged.body.charge_id);
    this.driven.mandate_charge += 1;
  }
}
