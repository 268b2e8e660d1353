import { GatewayError, type Logger, type Principal } from '@gateway/kernel';

/** Close code of a socket whose credential no longer holds (graphql-ws's Forbidden, as at connection_init). */
export const CREDENTIAL_REFUSED_CLOSE_CODE = 4403;
/**
 * Close code at the end of a socket's lifetime: Normal Closure, on which graphql-ws clients with a
 * subscription open reconnect (without counting it as a retry) and subscribe again, authenticating afresh.
 */
export const LIFETIME_CLOSE_CODE = 1000;
export const LIFETIME_CLOSE_REASON = 'maximum connection lifetime reached';

export const DEFAULT_CREDENTIAL_CHECK_MS = 2_000;
export const DEFAULT_MAX_LIFETIME_SECONDS = 86_400;
/** Distinct credentials verified at once; the vault sends each such batch as one statement. */
const SWEEP_BATCH = 1_000;

export interface ClosableSocket {
  close(code: number, reason: string): void;
}

export interface CredentialSweepOptions {
  /** How often every open socket's credential is verified again (default 2 s). */
  periodMs?: number;
  /** A socket is closed this long after it was accepted (default SUBSCRIPTION_MAX_LIFETIME_SECONDS' 86400 s). */
  maxLifetimeMs?: number;
  logger: Logger;
  /** Clock (tests). */
  now?: () => number;
}

export interface WatchOptions {
  socket: ClosableSocket;
  /** The principal the socket was accepted with. */
  principal: Principal;
  /** Sockets sending the same credential share one verification per round (a dashboard open in many tabs). */
  credentialKey: string;
  /** Verifies the credential again as HTTP does; a GatewayError is a refusal, anything else a failure to find out. */
  authenticate: () => Principal | Promise<Principal>;
}

type Outcome = { ok: true } | { ok: false; definite: boolean };

/** One accepted socket, as the sweep follows it. */
export class WatchedConnection {
  closed = false;
  /** When its credential was last found valid (first: when it was accepted). */
  verifiedAt: number;
  readonly acceptedAt: number;

  constructor(
    private readonly sweep: CredentialSweep,
    readonly options: WatchOptions,
    now: number,
  ) {
    this.verifiedAt = this.acceptedAt = now;
  }

  /**
   * Before a message goes out: true when the credential was found valid within the period, or is
   * now. A refusal closes the socket (false). While the vault cannot be asked, the message waits
   * for an answer rather than going out on a credential nobody could check, or being dropped.
   */
  async ensureCurrent(): Promise<boolean> {
    while (!this.closed) {
      if (this.sweep.closeIfTooOld(this)) return false;
      if (this.sweep.clock() - this.verifiedAt <= this.sweep.periodMs) return true;
      const outcome = await this.sweep.verify(this.options.credentialKey);
      if (!outcome.ok && !outcome.definite) await new Promise((resolve) => setTimeout(resolve, this.sweep.periodMs));
    }
    return false;
  }

  close(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.sweep.forget(this);
    this.options.socket.close(code, reason);
  }
}

/** The close reason for a refused credential (at most 123 bytes, ASCII). */
export function refusalReason(error: GatewayError): string {
  const code = String(error.code);
  const text =
    code === 'TOKEN_REVOKED'
      ? 'credential revoked'
      : code === 'TOKEN_EXPIRED'
        ? 'credential expired'
        : code.endsWith('_SUSPENDED')
          ? 'credential owner suspended'
          : 'credential revoked, rotated or expired';
  return `${text} (${code})`.slice(0, 123);
}

const ownerOf = (p: Principal) =>
  JSON.stringify([p.kind, p.id ?? null, p.consentId ?? null, [...(p.scopes ?? [])].sort()]);

/**
 * Open subscriptions follow their credential (API-CONTRACT "Operator controls": revocation,
 * rotation and suspension reach open subscriptions within 5 s). One timer per router: every
 * period, each distinct credential of the open sockets is verified again through the router's
 * own `authenticate` (the vault, no cache; concurrent lookups go as one statement), and the
 * sockets of a refused one are closed with 4403 and the reason. A failure to ask (the database
 * unreachable) closes nothing: only a refusal does. Sockets past their lifetime are closed too.
 */
export class CredentialSweep {
  readonly periodMs: number;
  readonly clock: () => number;
  private readonly maxLifetimeMs: number;
  private readonly byCredential = new Map<string, Set<WatchedConnection>>();
  /** Verifications under way, by credential: a message waiting and the round share one. */
  private readonly pending = new Map<string, Promise<Outcome>>();
  private timer?: NodeJS.Timeout;
  private sweeping = false;

  constructor(private readonly options: CredentialSweepOptions) {
    this.periodMs = options.periodMs ?? DEFAULT_CREDENTIAL_CHECK_MS;
    this.maxLifetimeMs = options.maxLifetimeMs ?? DEFAULT_MAX_LIFETIME_SECONDS * 1000;
    this.clock = options.now ?? Date.now;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.sweep(), this.periodMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Open sockets followed. */
  get size(): number {
    let count = 0;
    for (const connections of this.byCredential.values()) count += connections.size;
    return count;
  }

  watch(options: WatchOptions): WatchedConnection {
    const connection = new WatchedConnection(this, options, this.clock());
    let connections = this.byCredential.get(options.credentialKey);
    if (!connections) this.byCredential.set(options.credentialKey, (connections = new Set()));
    connections.add(connection);
    return connection;
  }

  /** The socket went away: followed no more. */
  forget(connection: WatchedConnection): void {
    connection.closed = true;
    const key = connection.options.credentialKey;
    const connections = this.byCredential.get(key);
    connections?.delete(connection);
    if (connections && !connections.size) this.byCredential.delete(key);
  }

  /** One round; a round still running when the next is due lets it pass. */
  async sweep(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      for (const connections of [...this.byCredential.values()])
        for (const connection of [...connections]) this.closeIfTooOld(connection);
      const keys = [...this.byCredential.keys()];
      for (let start = 0; start < keys.length; start += SWEEP_BATCH)
        await Promise.all(keys.slice(start, start + SWEEP_BATCH).map((key) => this.verify(key)));
    } finally {
      this.sweeping = false;
    }
  }

  /** Closes the socket if its lifetime is over; true when it did. */
  closeIfTooOld(connection: WatchedConnection): boolean {
    if (this.clock() - connection.acceptedAt < this.maxLifetimeMs) return false;
    connection.close(LIFETIME_CLOSE_CODE, LIFETIME_CLOSE_REASON);
    return true;
  }

  /** Verifies a credential once and applies the answer to every socket sending it. */
  verify(key: string): Promise<Outcome> {
    let outcome = this.pending.get(key);
    if (!outcome) {
      outcome = this.verifyNow(key).finally(() => this.pending.delete(key));
      this.pending.set(key, outcome);
    }
    return outcome;
  }

  private async verifyNow(key: string): Promise<Outcome> {
    const first = this.byCredential.get(key)?.values().next().value;
    if (!first) return { ok: true };
    const askedAt = this.clock();
    let principal: Principal;
    try {
      principal = await first.options.authenticate();
    } catch (error) {
      if (!(error instanceof GatewayError)) {
        this.options.logger.warn({ err: error }, 'subscription credential could not be verified; sockets stay open');
        return { ok: false, definite: false };
      }
      // A socket accepted after this check was asked was checked later than it (a suspension since lifted).
      for (const connection of [...(this.byCredential.get(key) ?? [])])
        if (connection.acceptedAt <= askedAt) connection.close(CREDENTIAL_REFUSED_CLOSE_CODE, refusalReason(error));
      return { ok: false, definite: true };
    }
    const owner = ownerOf(principal);
    for (const connection of [...(this.byCredential.get(key) ?? [])]) {
      if (ownerOf(connection.options.principal) !== owner)
        connection.close(CREDENTIAL_REFUSED_CLOSE_CODE, 'credential now speaks for another owner');
      else connection.verifiedAt = Math.max(connection.verifiedAt, askedAt);
    }
    return { ok: true };
  }
}
