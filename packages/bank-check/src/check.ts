import { Agent } from 'undici';
import { BankCoreError, createBankCoreClient, type BankCoreClient } from '@gateway/bank-core-client';
import {
  assertAmount,
  assertCurrency,
  createLogger,
  formatMoney,
  GatewayError,
  invalid,
  randomToken,
  requireIban,
  type Currency,
} from '@gateway/kernel';
import { rawCall } from './probe';
import {
  ANSWER_LIMIT_MS,
  DEFAULT_AMOUNT,
  DEFAULT_TIMEOUT_MS,
  STEPS,
  type BankCheckOptions,
  type BankCheckResult,
  type CallTiming,
  type StepId,
  type StepResult,
  type StepStatus,
} from './types';

type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

/**
 * Runs the onboarding check against a bank core: steps 1-8 in order through the gateway's own
 * bank-core client (raw HTTP only for what the client never sends: a wrong or missing key),
 * then puts the test account's balance back if a step left it moved (step 10), then judges every
 * call's answer time (step 9). Never throws for what the core does; throws VALIDATION_ERROR for
 * bad options.
 */
export async function runBankCheck(options: BankCheckOptions): Promise<BankCheckResult> {
  const iban = requireIban(options.iban).iban;
  const amount = options.amount ?? DEFAULT_AMOUNT;
  assertAmount(amount);
  if (options.currency !== undefined) assertCurrency(options.currency);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!(Number.isSafeInteger(timeoutMs) && timeoutMs > 0))
    throw invalid('timeoutMs', 'must be a positive integer of milliseconds');
  for (const field of ['internalKey', 'customerRef', 'otp'] as const) {
    if (typeof options[field] !== 'string' || !options[field].trim()) throw invalid(field, 'required');
  }

  // A pool of its own, closed at the end, so the command exits as soon as the check is done.
  const dispatcher = new Agent({ connect: { timeout: timeoutMs } });
  try {
    const common = {
      bankHandle: 'bank-check',
      baseUrl: options.url,
      timeoutMs,
      // One attempt per call: the check wants to see each answer, not the client's recovery from it.
      retry: { attempts: 1, baseDelayMs: 0, maxDelayMs: 0 },
      totalBudgetMs: timeoutMs,
      production: false,
      logger: createLogger('bank-check', 'silent'),
      dispatcher,
    };
    const client = createBankCoreClient({ ...common, internalKey: options.internalKey });
    const wrongKeyClient = createBankCoreClient({ ...common, internalKey: `chk_wrong_key_${randomToken(24)}` });
    return await new Check({ ...options, iban, amount, timeoutMs }, client, wrongKeyClient, dispatcher).run();
  } finally {
    await dispatcher.close();
  }
}

class Check {
  private readonly steps = new Map<StepId, StepResult>();
  private readonly calls: CallTiming[] = [];
  private readonly notes: string[] = [];
  private readonly refs = {
    debit: `chk_${randomToken(20)}`,
    credit: `chk_${randomToken(20)}`,
    insufficientFunds: `chk_${randomToken(20)}`,
    restore: `chk_${randomToken(20)}`,
  };
  private readonly baseUrl: string;
  /** The balance when the check started, and as last read. */
  private start: number | undefined;
  private known: number | undefined;
  private lastReadProblem = '';
  private currency: Currency | undefined;
  /** References the core booked, to look for in its statement. */
  private readonly booked: string[] = [];

  constructor(
    private readonly o: BankCheckOptions & { iban: string; amount: number; timeoutMs: number },
    private readonly client: BankCoreClient,
    private readonly wrongKeyClient: BankCoreClient,
    private readonly dispatcher: Agent,
  ) {
    this.baseUrl = client.baseUrl;
  }

  async run(): Promise<BankCheckResult> {
    if (this.baseUrl.startsWith('http:'))
      this.notes.push('http: a live core must answer over HTTPS (TLS 1.2 or later), as the spec requires');
    await this.verify();
    await this.wrongOtp();
    await this.wrongKey();
    await this.account();
    await this.debitOnce();
    await this.creditOnce();
    await this.insufficientFunds();
    await this.statement();
    await this.restore();
    this.answerTime();
    const steps = [...this.steps.values()].sort((a, b) => a.number - b.number);
    return {
      ok: !steps.some((step) => step.status === 'FAIL'),
      target: {
        url: this.baseUrl,
        iban: this.o.iban,
        customerRef: this.o.customerRef,
        amount: this.o.amount,
        currency: this.currency ?? null,
        references: this.refs,
      },
      steps,
      calls: this.calls,
      notes: this.notes,
    };
  }

  private async verify(): Promise<void> {
    const r = await this.call(1, 'verifyCustomer', () =>
      this.client.verifyCustomer({ customerRef: this.o.customerRef, otp: this.o.otp }),
    );
    if (r.ok) this.record('verify', 'PASS', 'verified: true');
    else this.record('verify', 'FAIL', `the right OTP was not accepted: ${this.said(r.error)}`);
  }

  private async wrongOtp(): Promise<void> {
    const r = await this.call(2, 'verifyCustomer (wrong OTP)', () =>
      this.client.verifyCustomer({ customerRef: this.o.customerRef, otp: wrongOtp(this.o.otp) }),
    );
    if (r.ok) return this.record('wrong-otp', 'FAIL', 'the core verified a wrong OTP');
    const error = r.error;
    if (!(error instanceof BankCoreError) || error.code !== 'OTP_INVALID') {
      return this.record('wrong-otp', 'FAIL', `expected HTTP 401 (read as OTP_INVALID), got ${this.said(error)}`);
    }
    if (error.coreStatus === 401) return this.record('wrong-otp', 'PASS', 'refused: HTTP 401, read as OTP_INVALID');
    this.record(
      'wrong-otp',
      'WARN',
      `read as OTP_INVALID, but answered HTTP ${error.coreStatus ?? '?'}; the spec asks for 401`,
    );
  }

  private async wrongKey(): Promise<void> {
    const problems: string[] = [];
    const seen: string[] = [];
    const refusal = (status: number) => status === 401 || status === 403;
    const body = { customer_ref: this.o.customerRef, otp: this.o.otp };
    const probe = { baseUrl: this.baseUrl, timeoutMs: this.o.timeoutMs, dispatcher: this.dispatcher };

    const verify = await this.call(3, 'verify (wrong key)', () =>
      rawCall({
        ...probe,
        method: 'POST',
        path: '/customers/verify',
        internalKey: `chk_wrong_key_${randomToken(24)}`,
        body,
      }),
    );
    if (!verify.ok) problems.push(`no answer to a wrong key on /customers/verify: ${this.said(verify.error)}`);
    else {
      seen.push(`wrong key: HTTP ${verify.value.status}${verify.value.code ? ` ${verify.value.code}` : ''}`);
      if (verify.value.status < 300) problems.push('accepted a wrong internal key on /customers/verify');
      else if (!refusal(verify.value.status))
        problems.push(`answered a wrong key with HTTP ${verify.value.status}; expected 401 or 403`);
    }

    const read = await this.call(3, 'getAccount (no key)', () =>
      rawCall({ ...probe, method: 'GET', path: `/accounts/${encodeURIComponent(this.o.iban)}`, internalKey: null }),
    );
    if (!read.ok) problems.push(`no answer to a call without a key on /accounts/{iban}: ${this.said(read.error)}`);
    else {
      seen.push(`no key: HTTP ${read.value.status}`);
      if (read.value.status < 300) problems.push('served /accounts/{iban} without an internal key');
      else if (!refusal(read.value.status))
        problems.push(`answered a missing key with HTTP ${read.value.status}; expected 401 or 403`);
    }

    // How the gateway itself reads the refusal: a wrong key must not look like the customer's wrong OTP.
    const gateway = await this.call(3, 'verifyCustomer (wrong key)', () =>
      this.wrongKeyClient.verifyCustomer({ customerRef: this.o.customerRef, otp: this.o.otp }),
    );
    if (gateway.ok) {
      if (!problems.some((p) => p.startsWith('accepted')))
        problems.push("the gateway's client read the answer to a wrong key as verified");
    } else if (gateway.error instanceof BankCoreError && gateway.error.code === 'OTP_INVALID') {
      problems.push(
        `the gateway reads this refusal as the customer's wrong OTP; answer a wrong key with its own code, e.g. {"error": {"code": "INVALID_INTERNAL_KEY"}}`,
      );
    }

    if (problems.length)
      this.record('wrong-key', 'FAIL', `${problems.join('; ')}${seen.length ? ` (${seen.join(', ')})` : ''}`);
    else this.record('wrong-key', 'PASS', `${seen.join(', ')}; read as a key refusal, not a wrong OTP`);
  }

  private async account(): Promise<void> {
    const r = await this.call(4, 'getAccount', () => this.client.getAccount(this.o.iban));
    if (!r.ok) return this.record('account', 'FAIL', `could not read the account: ${this.said(r.error)}`);
    const { balance, currency } = r.value;
    if (!Number.isSafeInteger(balance) || !currency)
      return this.record(
        'account',
        'FAIL',
        `balance ${String(balance)} / currency ${String(currency)}: an integer balance and a currency are required`,
      );
    if (this.o.currency !== undefined && this.o.currency !== currency) {
      return this.record('account', 'FAIL', `the account is in ${currency}, --currency says ${this.o.currency}`);
    }
    this.start = this.known = balance;
    this.currency = currency;
    this.record('account', 'PASS', `balance ${formatMoney(balance, currency)}`);
  }

  private async debitOnce(): Promise<void> {
    if (this.start === undefined) return this.record('debit-once', 'SKIP', 'needs the account read (step 4)');
    const before = this.known ?? (await this.readBalance(5));
    if (before === undefined)
      return this.record('debit-once', 'FAIL', `could not read the balance before the debit: ${this.lastReadProblem}`);
    if (before < this.o.amount)
      return this.record(
        'debit-once',
        'FAIL',
        `the balance ${before} is below the check's amount ${this.o.amount}: fund the test account`,
      );
    await this.movedOnce('debit-once', 'debit', this.refs.debit, before);
  }

  private async creditOnce(): Promise<void> {
    if (this.start === undefined) return this.record('credit-once', 'SKIP', 'needs the account read (step 4)');
    const before = this.known ?? (await this.readBalance(6));
    if (before === undefined)
      return this.record(
        'credit-once',
        'FAIL',
        `could not read the balance before the credit: ${this.lastReadProblem}`,
      );
    if (before >= this.start)
      return this.record('credit-once', 'SKIP', 'the debit took nothing, so there is nothing to give back');
    await this.movedOnce('credit-once', 'credit', this.refs.credit, before);
  }

  /** One movement sent twice with the same reference: the balance must move exactly once. */
  private async movedOnce(id: StepId, operation: 'debit' | 'credit', reference: string, before: number): Promise<void> {
    const { number } = STEPS[id];
    const input = {
      iban: this.o.iban,
      amount: this.o.amount,
      currency: this.currency!,
      reference,
      description: `bank onboarding check ${reference}`,
    };
    const send = () => (operation === 'debit' ? this.client.debit(input) : this.client.credit(input));
    const first = await this.call(number, operation, send);
    const second = await this.call(number, `${operation} (same reference)`, send);
    if (first.ok || second.ok) this.booked.push(reference);
    const after = await this.readBalance(number);
    if (after === undefined)
      return this.record(id, 'FAIL', `could not read the balance after the ${operation}: ${this.lastReadProblem}`);

    const expected = operation === 'debit' ? -this.o.amount : this.o.amount;
    const moved = after - before;
    const balance = `balance ${before} → ${after}`;
    if (!first.ok)
      return this.record(
        id,
        'FAIL',
        `the ${operation} of ${this.o.amount} was not booked: ${this.said(first.error)}; ${balance}`,
      );
    if (moved === 2 * expected) {
      return this.record(
        id,
        'FAIL',
        `double-booked: the retry with the same reference ${reference} was booked again (${balance}, moved ${moved}, expected ${expected})`,
      );
    }
    if (moved !== expected) return this.record(id, 'FAIL', `${balance}: moved ${moved}, expected ${expected}`);

    const back =
      operation === 'credit' ? (after === this.start ? ', back to the start' : `, the start was ${this.start}`) : '';
    if (second.ok) return this.record(id, 'PASS', `booked once: ${balance}${back}; the retry was answered 2xx`);
    const status = second.error instanceof BankCoreError ? second.error.coreStatus : undefined;
    if (status === 409)
      return this.record(
        id,
        'PASS',
        `booked once: ${balance}${back}; the retry was answered HTTP 409 (read as already booked)`,
      );
    if (status !== undefined && status >= 400 && status < 500) {
      return this.record(
        id,
        'WARN',
        `booked once: ${balance}${back}; the retry was refused (${this.said(second.error)}): the gateway then has to reconcile by the statement`,
      );
    }
    this.record(
      id,
      'FAIL',
      `booked once (${balance}), but the retry got no usable answer: ${this.said(second.error)}; the gateway retries with the same reference and needs an answer`,
    );
  }

  private async insufficientFunds(): Promise<void> {
    if (this.start === undefined) return this.record('insufficient-funds', 'SKIP', 'needs the account read (step 4)');
    const before = this.known ?? (await this.readBalance(7));
    if (before === undefined)
      return this.record('insufficient-funds', 'FAIL', `could not read the balance: ${this.lastReadProblem}`);
    const tooMuch = Math.max(before, 0) + this.o.amount;
    const reference = this.refs.insufficientFunds;
    const r = await this.call(7, 'debit (over the balance)', () =>
      this.client.debit({
        iban: this.o.iban,
        amount: tooMuch,
        currency: this.currency!,
        reference,
        description: `bank onboarding check ${reference}`,
      }),
    );
    const after = await this.readBalance(7);
    const balance =
      after === undefined
        ? `balance unreadable afterwards (${this.lastReadProblem})`
        : after === before
          ? `balance unchanged at ${before}`
          : `balance ${before} → ${after}`;
    if (r.ok)
      return this.record(
        'insufficient-funds',
        'FAIL',
        `booked a debit of ${tooMuch} against a balance of ${before}; ${balance}`,
      );
    if (!(r.error instanceof BankCoreError) || r.error.code !== 'INSUFFICIENT_FUNDS') {
      return this.record(
        'insufficient-funds',
        'FAIL',
        `refused as ${this.said(r.error)}; the gateway needs HTTP 422 {"error": {"code": "INSUFFICIENT_FUNDS"}}; ${balance}`,
      );
    }
    if (after !== before)
      return this.record('insufficient-funds', 'FAIL', `refused as INSUFFICIENT_FUNDS, but ${balance}`);
    this.record(
      'insufficient-funds',
      'PASS',
      `refused a debit of ${tooMuch}: HTTP ${r.error.coreStatus ?? '?'}, read as INSUFFICIENT_FUNDS; ${balance}`,
    );
  }

  private async statement(): Promise<void> {
    if (!this.booked.length) return this.record('statement', 'SKIP', 'no movement of the check was booked');
    // A day either side of today (UTC): the core's books may keep another time zone.
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    const [from, to] = [day(-1), day(1)];
    const r = await this.call(8, 'listTransactions', () => this.client.listTransactions(this.o.iban, from, to));
    if (!r.ok)
      return this.record('statement', 'FAIL', `could not read the statement ${from}..${to}: ${this.said(r.error)}`);
    const transactions = r.value.transactions;
    const carries = (t: (typeof transactions)[number], ref: string) =>
      t.reference === ref || (t.description ?? '').includes(ref);
    const count = (ref: string) => transactions.filter((t) => carries(t, ref)).length;
    const listed = `${transactions.length} transactions ${from}..${to}`;
    if (count(this.refs.insufficientFunds) > 0)
      return this.record(
        'statement',
        'FAIL',
        `the refused debit ${this.refs.insufficientFunds} is in the statement (${listed})`,
      );
    const twice = this.booked.filter((ref) => count(ref) > 1);
    if (twice.length) return this.record('statement', 'FAIL', `listed more than once: ${twice.join(', ')} (${listed})`);
    const missing = this.booked.filter((ref) => count(ref) === 0);
    if (!missing.length) return this.record('statement', 'PASS', `${this.booked.join(', ')} listed (${listed})`);
    if (!transactions.some((t) => t.reference)) {
      return this.record(
        'statement',
        'WARN',
        `the statement carries no references (${listed}): the contract accepts that, but the gateway cannot then find a movement whose answer was lost`,
      );
    }
    this.record('statement', 'FAIL', `not in the statement: ${missing.join(', ')} (${listed})`);
  }

  /** Puts the balance back where the check found it when a defective step left it moved. */
  private async restore(): Promise<void> {
    if (this.start === undefined)
      return this.record('balance-restored', 'SKIP', 'the starting balance is unknown (step 4)');
    const start = this.start;
    const final = await this.readBalance(10);
    if (final === undefined)
      return this.record('balance-restored', 'FAIL', `could not read the final balance: ${this.lastReadProblem}`);
    if (final === start)
      return this.record('balance-restored', 'PASS', `balance back at ${start} ${this.currency ?? ''}`.trim());
    const operation = final < start ? 'credit' : 'debit';
    const reference = this.refs.restore;
    const input = {
      iban: this.o.iban,
      amount: Math.abs(start - final),
      currency: this.currency!,
      reference,
      description: `bank onboarding check correction ${reference}`,
    };
    const r = await this.call(10, `${operation} (correction)`, () =>
      operation === 'credit' ? this.client.credit(input) : this.client.debit(input),
    );
    const after = await this.readBalance(10);
    if (after === start) {
      return this.record(
        'balance-restored',
        'WARN',
        `the steps left the balance at ${final}; a corrective ${operation} of ${input.amount} (${reference}) put it back at ${start}`,
      );
    }
    const why = r.ok ? '' : `; the corrective ${operation} failed: ${this.said(r.error)}`;
    this.record('balance-restored', 'FAIL', `left at ${after ?? final}, started at ${start}${why}`);
  }

  private answerTime(): void {
    const limit = this.o.answerLimitMs ?? ANSWER_LIMIT_MS;
    const over = this.calls.filter((c) => c.timedOut || c.ms >= limit);
    if (over.length) {
      const list = over.map(
        (c) => `${c.call} (step ${c.step}) ${c.timedOut ? `no answer in ${c.ms} ms` : `${c.ms} ms`}`,
      );
      return this.record(
        'answer-time',
        'FAIL',
        `over ${limit === ANSWER_LIMIT_MS ? "the spec's 10 s" : `${limit} ms`}: ${list.join(', ')}`,
      );
    }
    const answered = this.calls.filter((c) => c.answered);
    const slowest = answered.reduce<CallTiming | undefined>((a, c) => (a && a.ms >= c.ms ? a : c), undefined);
    if (!slowest) return this.record('answer-time', 'SKIP', 'no call was answered');
    const unanswered = this.calls.length - answered.length;
    const rest = unanswered ? `; ${unanswered} not answered (see the steps above)` : '';
    this.record(
      'answer-time',
      'PASS',
      `${answered.length} answers, slowest ${slowest.call} (step ${slowest.step}) ${slowest.ms} ms${rest}`,
    );
  }

  private async readBalance(step: number): Promise<number | undefined> {
    const r = await this.call(step, 'getAccount', () => this.client.getAccount(this.o.iban));
    this.known = r.ok ? r.value.balance : undefined;
    if (!r.ok) this.lastReadProblem = this.said(r.error);
    return this.known;
  }

  /** Runs one call, timing it; never throws. */
  private async call<T>(step: number, call: string, fn: () => Promise<T>): Promise<Outcome<T>> {
    const started = performance.now();
    let outcome: Outcome<T>;
    try {
      outcome = { ok: true, value: await fn() };
    } catch (error) {
      outcome = { ok: false, error };
    }
    const timedOut = !outcome.ok && isTimeout(outcome.error);
    const answered = outcome.ok || (outcome.error instanceof BankCoreError && outcome.error.coreStatus !== undefined);
    this.calls.push({ step, call, ms: Math.round(performance.now() - started), answered, timedOut });
    return outcome;
  }

  private record(id: StepId, status: StepStatus, detail: string): void {
    this.steps.set(id, { ...STEPS[id], id, status, detail: oneLine(detail) });
  }

  /** What an error says, in one line, without the key or the OTP (a core may echo them). */
  private said(error: unknown): string {
    let text: string;
    if (error instanceof BankCoreError)
      text = `${error.code} (${error.coreStatus !== undefined ? `HTTP ${error.coreStatus}, ` : ''}${error.reason}): ${error.detail}`;
    else if (error instanceof GatewayError) text = `${error.code}: ${error.detail}`;
    else {
      const e = error as { name?: string; code?: string; message?: string };
      text = `${e?.code ?? e?.name ?? 'error'}: ${e?.message ?? String(error)}`;
    }
    for (const secret of [this.o.internalKey, this.o.otp]) {
      if (secret.length >= 3) text = text.split(secret).join('***');
    }
    return oneLine(text).slice(0, 300);
  }
}

function isTimeout(error: unknown): boolean {
  if (error instanceof BankCoreError) return error.reason === 'timeout';
  const e = error as { name?: string; code?: string } | null;
  return (
    e?.name === 'TimeoutError' ||
    e?.name === 'AbortError' ||
    (e?.code?.startsWith('UND_ERR_') === true && e.code.endsWith('TIMEOUT'))
  );
}

/** An OTP the core cannot have issued: every digit changed, or the last character changed. */
export function wrongOtp(otp: string): string {
  if (/^\d+$/.test(otp)) return otp.replace(/\d/g, (d) => String((Number(d) + 1) % 10));
  const last = otp.slice(-1) === 'x' ? 'y' : 'x';
  return `${otp.slice(0, -1)}${last}`;
}

const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();
