import { clientKeyOf, GatewayError, hmacSha256Hex, type Logger, type World } from '@gateway/kernel';
import { ALIAS_ROUTING_FIELDS, BANK_ROUTING_FIELDS, type AliasRouting, type BankRouting } from './directory';
import { ServiceCallError, type ServiceClient } from './service-client';

const ATTEMPT_FIELDS = 'attemptId retryAfterSeconds repeated';
const TAKE = `mutation TakeOtpAttempt($bankHandle: String!, $customerRef: String!, $guess: String!, $client: String!, $settle: [OtpSettlementInput!]) {
  takeOtpAttempt(bankHandle: $bankHandle, customerRef: $customerRef, guess: $guess, client: $client, settle: $settle) { ${ATTEMPT_FIELDS} settled }
}`;
/**
 * A payer's take, with the bank's routing read through the router (a field the banks subgraph
 * resolves) or without it (the caller has it cached: then the router forwards the call to
 * identity alone). Two documents, so each is planned once.
 */
const payerTake = (
  withBank: boolean,
) => `mutation TakePayerOtpAttempt${withBank ? 'WithBank' : ''}($alias: String, $iban: String, $livemode: Boolean!, $guess: String!, $client: String!, $settle: [OtpSettlementInput!]) {
  takePayerOtpAttempt(alias: $alias, iban: $iban, livemode: $livemode, guess: $guess, client: $client, settle: $settle) {
    routing { ${ALIAS_ROUTING_FIELDS}${withBank ? ` bank { routing { ${BANK_ROUTING_FIELDS} } }` : ''} }
    attempt { ${ATTEMPT_FIELDS} }
    settled
  }
}`;
const PAYER_TAKE = { withBank: payerTake(true), withoutBank: payerTake(false) };
const SETTLE = `mutation SettleOtpAttempts($settlements: [OtpSettlementInput!]!) { settleOtpAttempts(settlements: $settlements) }`;

/**
 * How long a give-back waits for a take to ride on before it is sent in a batch of its own. The
 * registry gives back the checks a take carries in the take's statement (no statement of their
 * own: issue 32), so the window is long enough for a next take to come in a steady flow of
 * payments (it was 50 ms). Longer only ever holds an accepted check a moment longer (stricter),
 * and a crash meanwhile leaves at most this long's give-backs counting for the window.
 */
export const GIVE_BACK_WITHIN_MS = 250;
/** At most this many give-backs travel in one call (the registry's own cap is higher). */
const GIVE_BACK_BATCH = 200;

interface Settlement {
  bankHandle: string;
  customerRef: string;
  attemptId: string;
}

/** The registry's answer to a take. */
interface TakenAttempt {
  attemptId: string | null;
  retryAfterSeconds: number | null;
  /** The guess was already held: the check is an earlier call's. */
  repeated: boolean | null;
  /** The give-backs of the call's `settle` the registry applied; the others are sent again. */
  settled?: string[] | null;
}

/** The customer whose OTP is checked: their bank and bank_customer_ref, as the registry gave them. */
export interface OtpCustomer {
  bankHandle: string;
  bankCustomerRef: string;
  /**
   * The world of what the OTP confirms. Test-mode checks count apart from live ones: wrong OTPs
   * tried in test mode (a shared test payer, a real customer's alias) never lock anyone out live.
   */
  world: World;
  /**
   * The address the OTP came from (the principal's ip; null when unknown). Refused OTPs count per
   * client first: someone guessing from one address locks out that address, not the customer.
   */
  client: string | null;
}

/** Where a customer's checks of a world are kept: the test world's under a prefix of bank_customer_ref (the registry's payer take uses it too). */
export const otpGuardKeyPrefix = (world: World): string => (world === 'test' ? 'test:' : '');

/** The registry's key of a customer's checks. */
const guardKey = (customer: Pick<OtpCustomer, 'bankHandle' | 'bankCustomerRef' | 'world'>) => ({
  bankHandle: customer.bankHandle,
  customerRef: otpGuardKeyPrefix(customer.world) + customer.bankCustomerRef,
});

/** What the registry answered a payer's take: the payer, their bank's routing when it was asked, the check. */
export interface PayerTake {
  payer: AliasRouting;
  /** Undefined: not asked; null: the banks subgraph has no participating bank of that handle. */
  bank: BankRouting | null | undefined;
  /** Null: the alias is INACTIVE, nothing was taken. */
  check: OtpCheck | null;
}

/** An alias or an IBAN, as a payer names themself. */
export type PayerLookup = { alias: string } | { iban: string };

/**
 * One check the registry took for a customer, before their bank is asked: `verify` asks the bank
 * under it; `countRefused` counts it as a wrong OTP the gateway judged itself; `release` lets go
 * of one nobody judged. A check refused by the registry answers RATE_LIMITED (Retry-After) to the
 * first two.
 */
export class OtpCheck {
  constructor(
    private readonly attempt: TakenAttempt,
    private readonly giveBack: (attemptId: string) => void,
  ) {}

  /**
   * Asks the bank (`verify`): an OTP it accepted, or never judged (a core timeout), is given back;
   * a refused one (OTP_INVALID) keeps counting. Errors of `verify` pass through unchanged.
   */
  async verify(verify: () => Promise<unknown>): Promise<void> {
    const attemptId = this.taken();
    try {
      await verify();
    } catch (error) {
      if (!(error instanceof GatewayError && error.code === 'OTP_INVALID')) this.giveBack(attemptId);
      throw error;
    }
    this.giveBack(attemptId);
  }

  /** A wrong OTP judged without the bank: the check stays, as a refused one would. */
  countRefused(): void {
    this.taken();
  }

  /**
   * Stopped before the bank was asked, for a reason that is no guess (the payer is the payee, the
   * payer's bank takes no part): given back. Not when the guess was already held (`repeated`): that
   * check is the earlier call's, which judges it, and giving it back here would erase a refusal.
   */
  release(): void {
    if (this.attempt.attemptId && !this.attempt.repeated) this.giveBack(this.attempt.attemptId);
  }

  private taken(): string {
    if (this.attempt.attemptId) return this.attempt.attemptId;
    const seconds = this.attempt.retryAfterSeconds ?? 60;
    throw new GatewayError(
      'RATE_LIMITED',
      `too many refused one-time passwords for this customer; try again in ${seconds} s`,
      undefined,
      seconds,
    );
  }
}

/**
 * The one way a customer's OTP is checked (checkout, consent, SCA, mandate confirmation): the
 * identity registry takes the check first and refuses it with RATE_LIMITED (Retry-After) once the
 * customer's refused OTPs reached its limit, whichever session, consent or mandate they were for;
 * then `verify` asks the customer's bank. A check the bank accepted, or never judged (a core
 * timeout), is given back; a refused one (OTP_INVALID) keeps counting. Errors of `verify` pass
 * through unchanged.
 */
export class OtpGuard {
  private pending: Settlement[] = [];
  private flushTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly call: ServiceClient,
    /** Keys the guess's HMAC: the registry can tell two guesses apart, never read one. */
    private readonly platformSecret: string,
    private readonly logger: Logger,
  ) {}

  async check(customer: OtpCustomer, otp: string, verify: () => Promise<unknown>, requestId?: string): Promise<void> {
    await (await this.take(customer, otp, requestId)).verify(verify);
  }

  /**
   * An OTP judged without the bank (it is not the one that already authorised this session or
   * consent): counted as a refused guess, as the bank would have, so a stored authorisation can
   * never be used to test OTPs. A customer already at the limit gets RATE_LIMITED.
   */
  async countRefused(customer: OtpCustomer, otp: string, requestId?: string): Promise<void> {
    (await this.take(customer, otp, requestId)).countRefused();
  }

  /** A check taken for a customer the caller knows (a mandate's, a consent's, a test payer). */
  async take(customer: OtpCustomer, otp: string, requestId?: string): Promise<OtpCheck> {
    const key = guardKey(customer);
    const guess = this.guessOf(`${key.bankHandle}:${key.customerRef}`, otp);
    const { takeOtpAttempt } = await this.riding(
      (settle) =>
        this.call<{ takeOtpAttempt: TakenAttempt }>(
          TAKE,
          { ...key, guess, client: clientKeyOf(customer.client), settle },
          requestId,
        ),
      (answer) => answer.takeOtpAttempt.settled,
    );
    return this.checkOf(key, takeOtpAttempt, requestId);
  }

  /**
   * A payer's routing and a check taken for the customer it names, in one call: the registry
   * resolves the alias (or IBAN) and takes the check for that customer in one statement, so no
   * caller can take a check for one customer while routing another. With `withBank`, the payer's
   * bank's routing comes in the same call (the router asks the banks subgraph for it). An
   * unknown alias is ALIAS_NOT_FOUND (nothing taken). The guess is keyed by the lookup (the
   * customer is not known yet): the same OTP sent again for the same payer is the same check.
   */
  async takeForPayer(
    lookup: PayerLookup,
    otp: string,
    world: World,
    client: string | null,
    withBank: boolean,
    requestId?: string,
  ): Promise<PayerTake> {
    const subject = 'alias' in lookup ? `alias:${lookup.alias.trim().toLowerCase()}` : `iban:${lookup.iban}`;
    const guess = this.guessOf(`payer:${world}:${subject}`, otp);
    type Answer = {
      takePayerOtpAttempt: {
        routing: AliasRouting & { bank?: { routing: BankRouting | null } };
        attempt: TakenAttempt | null;
        settled?: string[] | null;
      };
    };
    const answerOf = (data: unknown) => (data as Partial<Answer> | null | undefined)?.takePayerOtpAttempt;
    const checkOf = (answer: Answer['takePayerOtpAttempt']) =>
      answer.attempt && this.checkOf(guardKey({ ...answer.routing, world }), answer.attempt, requestId);
    const variables = { ...lookup, livemode: world === 'live', guess, client: clientKeyOf(client) };
    const answer = await this.riding(
      (settle) =>
        this.call<Answer>(withBank ? PAYER_TAKE.withBank : PAYER_TAKE.withoutBank, { ...variables, settle }, requestId),
      (data) => answerOf(data)?.settled,
      // The take ran but a later field failed (the banks subgraph, through the router): nobody judged the check.
      (error) => {
        const taken = error instanceof ServiceCallError ? answerOf(error.data) : undefined;
        if (taken) checkOf(taken)?.release();
        return taken && ((error as ServiceCallError).data as Answer);
      },
    ).then(answerOf);
    const { bank, ...payer } = answer!.routing;
    return { payer, bank: withBank ? (bank?.routing ?? null) : undefined, check: checkOf(answer!) };
  }

  private guessOf(subject: string, otp: string): string {
    return hmacSha256Hex(this.platformSecret, `otp:${subject}:${otp}`);
  }

  private checkOf(key: { bankHandle: string; customerRef: string }, attempt: TakenAttempt, requestId?: string) {
    return new OtpCheck(attempt, (attemptId) => this.queue([{ ...key, attemptId }], requestId));
  }

  /**
   * Sends a take with the pending give-backs riding on it. The registry answers which it applied
   * (`settledIn`): another customer's whose checks a concurrent call held was skipped, not waited
   * for. Those not applied wait for the next call (or the batch), as do all of a call that failed,
   * unless `ran` finds the answer in its error (the take ran, a later part of the answer failed).
   * An answer lost after the registry applied them sends them again: giving back a check twice
   * changes nothing.
   */
  private async riding<T>(
    send: (settle: Settlement[]) => Promise<T>,
    settledIn: (answer: T) => readonly string[] | null | undefined,
    ran: (error: unknown) => T | undefined = () => undefined,
  ): Promise<T> {
    const settle = this.drain();
    let answer: T | undefined;
    try {
      answer = await send(settle);
      return answer;
    } catch (error) {
      answer = ran(error);
      throw error;
    } finally {
      const settled = new Set(answer === undefined ? [] : (settledIn(answer) ?? []));
      if (settled.size < settle.length) this.queue(settle.filter((given) => !settled.has(given.attemptId)));
    }
  }

  /**
   * Not awaited: the customer's answer does not wait for a give-back. Queued to ride on the next
   * take, or sent in a batch soon; a check never given back (a crash meanwhile) counts as refused
   * for the window, no more.
   */
  private queue(settlements: Settlement[], requestId?: string): void {
    this.pending.push(...settlements);
    this.schedule(requestId);
  }

  /** A batch of its own within GIVE_BACK_WITHIN_MS, unless a take carries the pending ones first. */
  private schedule(requestId?: string): void {
    if (this.flushTimer || this.pending.length === 0) return;
    this.flushTimer = setTimeout(() => this.flush(requestId), GIVE_BACK_WITHIN_MS);
    this.flushTimer.unref();
  }

  private drain(): Settlement[] {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const drained = this.pending.slice(0, GIVE_BACK_BATCH);
    this.pending = this.pending.slice(GIVE_BACK_BATCH);
    this.schedule();
    return drained;
  }

  private flush(requestId?: string): void {
    const settlements = this.drain();
    if (settlements.length === 0) return;
    this.call(SETTLE, { settlements }, requestId).catch((error: unknown) =>
      this.logger.warn(
        { err: error, attempts: settlements.length },
        'OTP checks not given back; they count until the window passes',
      ),
    );
  }
}
