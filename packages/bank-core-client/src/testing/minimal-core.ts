import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A bank core written from the spec's "Bank core callbacks" table alone, as another team would:
 * it answers only what the spec shows (or what a reasonable core adds), with field names the
 * gateway must not depend on. Tests run the gateway against it beside the sandbox bank, so no
 * interface works only with our own bank. In memory; one process; no persistence.
 *
 * Answers: debit/credit 200 {status: "BOOKED", transaction_id, reference}; a funds refusal
 * 422 {"error": "INSUFFICIENT_FUNDS"}; an unknown account 404 {"error": "ACCOUNT_NOT_FOUND"};
 * a bad key 401 {"error": "UNAUTHORIZED"}; GET /accounts/{iban} {iban, name, balance, currency};
 * statements as a bare array of {id, date, amount (signed), currency, reference, description}.
 */
export interface MinimalCoreOptions {
  internalKey: string;
  /**
   * How a reference seen before is answered: 'same' (the first answer again, the spec's
   * deduplication), 'duplicate' (409 {"error": {"code": "DUPLICATE_REFERENCE"}}: "already
   * booked"), or 'double-book' (a defective core that books it again).
   */
  replay?: 'same' | 'duplicate' | 'double-book';
}

export interface MinimalCoreFault {
  /** Path prefix the fault applies to, e.g. '/accounts/debit'. */
  path: string;
  /**
   * 'status': answer `status` with `body` without booking; 'book-then-status': book, then answer
   * `status` (the answer is lost); 'hang': book, then never answer.
   */
  kind: 'status' | 'book-then-status' | 'hang';
  status?: number;
  /** Raw answer body (JSON text, HTML, anything); default {"error": "FAULT"}. */
  body?: string;
}

export interface MinimalCoreEntry {
  id: string;
  date: string;
  /** Signed: negative for a debit. */
  amount: number;
  currency: string;
  reference: string;
  description: string;
}

export interface MinimalCore {
  url: string;
  /** Every request received, in order. */
  calls: Array<{
    method: string;
    path: string;
    body: Record<string, unknown> | null;
    headers: IncomingMessage['headers'];
  }>;
  openAccount(
    iban: string,
    options: { customerRef: string; otp: string; balance: number; currency?: string; name?: string },
  ): void;
  balance(iban: string): number;
  entries(iban: string): MinimalCoreEntry[];
  /** Queues faults; each is used once, in order, by the first matching request. */
  fail(...faults: MinimalCoreFault[]): void;
  /** Drops the faults not used yet: the core answers normally again. */
  recover(): void;
  /** The bank installs a rotated internal key: from now on only this one is accepted. */
  useInternalKey(key: string): void;
  stop(): Promise<void>;
}

interface Account {
  customerRef: string;
  otp: string;
  balance: number;
  currency: string;
  name: string;
  entries: MinimalCoreEntry[];
}

export async function startMinimalCore(options: MinimalCoreOptions): Promise<MinimalCore> {
  const accounts = new Map<string, Account>();
  const answered = new Map<string, { status: number; body: unknown }>();
  const faults: MinimalCoreFault[] = [];
  const calls: MinimalCore['calls'] = [];
  const hanging = new Set<ServerResponse>();
  let internalKey = options.internalKey;

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res
      .writeHead(status, { 'content-type': 'application/json' })
      .end(typeof body === 'string' ? body : JSON.stringify(body));
  };

  const move = (path: string, body: Record<string, unknown>): { status: number; body: unknown } => {
    const { iban, amount, currency, reference, description } = body as {
      iban: string;
      amount: number;
      currency: string;
      reference: string;
      description: string;
    };
    const account = accounts.get(String(iban));
    if (!account) return { status: 404, body: { error: 'ACCOUNT_NOT_FOUND' } };
    if (!Number.isSafeInteger(amount) || amount <= 0 || typeof reference !== 'string' || !reference)
      return { status: 400, body: { error: 'INVALID_REQUEST' } };
    if (currency !== account.currency) return { status: 422, body: { error: 'CURRENCY_MISMATCH' } };
    const key = `${path}\n${reference}`;
    const before = answered.get(key);
    if (before && options.replay !== 'double-book')
      return options.replay === 'duplicate'
        ? { status: 409, body: { error: { code: 'DUPLICATE_REFERENCE' } } }
        : before;
    const debit = path === '/accounts/debit';
    if (debit && account.balance < amount) return { status: 422, body: { error: 'INSUFFICIENT_FUNDS' } };
    account.balance += debit ? -amount : amount;
    const entry: MinimalCoreEntry = {
      id: `tx_${randomUUID()}`,
      date: new Date().toISOString().slice(0, 10),
      amount: debit ? -amount : amount,
      currency,
      reference,
      description: String(description ?? ''),
    };
    account.entries.push(entry);
    const answer = { status: 200, body: { status: 'BOOKED', transaction_id: entry.id, reference } };
    answered.set(key, answer);
    return answer;
  };

  const handle = (req: IncomingMessage, res: ServerResponse, body: Record<string, unknown> | null) => {
    const url = new URL(req.url ?? '/', 'http://core');
    calls.push({ method: req.method ?? '', path: url.pathname, body, headers: req.headers });
    if (req.headers['x-service-internal-key'] !== internalKey) return send(res, 401, { error: 'UNAUTHORIZED' });
    const faultIndex = faults.findIndex((fault) => url.pathname.startsWith(fault.path));
    const fault = faultIndex >= 0 ? faults.splice(faultIndex, 1)[0] : undefined;
    if (fault?.kind === 'status') return send(res, fault.status ?? 500, fault.body ?? { error: 'FAULT' });

    let answer: { status: number; body: unknown };
    if (req.method === 'POST' && url.pathname === '/customers/verify') {
      const account = [...accounts.values()].find((a) => a.customerRef === body?.customer_ref);
      answer =
        account && account.otp === body?.otp
          ? { status: 200, body: { verified: true } }
          : { status: 401, body: { error: 'OTP_INVALID' } };
    } else if (req.method === 'POST' && (url.pathname === '/accounts/debit' || url.pathname === '/accounts/credit')) {
      answer = move(url.pathname, body ?? {});
    } else if (req.method === 'GET' && /^\/accounts\/[^/]+\/transactions$/.test(url.pathname)) {
      const account = accounts.get(decodeURIComponent(url.pathname.split('/')[2]!));
      const from = url.searchParams.get('fromDate') ?? '0000-00-00';
      const to = url.searchParams.get('toDate') ?? '9999-99-99';
      answer = account
        ? { status: 200, body: account.entries.filter((e) => e.date >= from && e.date <= to) }
        : { status: 404, body: { error: 'ACCOUNT_NOT_FOUND' } };
    } else if (req.method === 'GET' && /^\/accounts\/[^/]+$/.test(url.pathname)) {
      const iban = decodeURIComponent(url.pathname.split('/')[2]!);
      const account = accounts.get(iban);
      answer = account
        ? { status: 200, body: { iban, name: account.name, balance: account.balance, currency: account.currency } }
        : { status: 404, body: { error: 'ACCOUNT_NOT_FOUND' } };
    } else {
      answer = { status: 404, body: { error: 'NOT_FOUND' } };
    }
    if (fault?.kind === 'book-then-status') return send(res, fault.status ?? 500, fault.body ?? { error: 'FAULT' });
    if (fault?.kind === 'hang') return void hanging.add(res);
    send(res, answer.status, answer.body);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let body: Record<string, unknown> | null;
      try {
        body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : null;
      } catch {
        return send(res, 400, { error: 'INVALID_JSON' });
      }
      handle(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    openAccount(iban, { customerRef, otp, balance, currency = 'LYD', name = 'Minimal Customer' }) {
      accounts.set(iban, { customerRef, otp, balance, currency, name, entries: [] });
    },
    balance: (iban) => accounts.get(iban)?.balance ?? Number.NaN,
    entries: (iban) => [...(accounts.get(iban)?.entries ?? [])],
    fail: (...added) => void faults.push(...added),
    recover: () => void faults.splice(0),
    useInternalKey: (key) => void (internalKey = key),
    async stop() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
