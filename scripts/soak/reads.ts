import { call, type Client } from '../chaos/client';
import { Grants } from '../chaos/grants';
import type { Parties } from '../chaos/onboarding';
import { pick } from '../chaos/random';
import type { SubscriptionSample } from '../chaos/subscription-sample';

/** Payers whose accounts the TPP reads: few, so their consents' token exchanges stay far below ob_token's 30/min per TPP. */
const READ_PAYERS = 4;
/** A grant refused (a token request limited, say) is asked for again after this long. */
const GRANT_RETRY_MS = 60_000;

/**
 * Read traffic beside the payments: a recent session's status as its merchant reads it, and a
 * payer's accounts as a TPP reads them (GET /ob/accounts, scope accounts:read; one consent per
 * payer, made once, made again when refused or no longer accepted).
 */
export class Reads {
  private grants: Grants;
  private grantsSince = Date.now();
  readonly answers: Record<string, number> = {};

  constructor(
    private readonly client: Client,
    private readonly rest: string,
    private readonly parties: Parties,
    private readonly subscriptions: SubscriptionSample,
  ) {
    this.grants = this.newGrants();
  }

  async one(): Promise<void> {
    if (Math.random() < 0.5) await this.sessionStatus();
    else await this.accounts();
  }

  private newGrants(): Grants {
    this.grantsSince = Date.now();
    return new Grants(this.client, this.rest, this.parties.tppToken, (what) => this.count(`grant refused: ${what}`));
  }

  private count(what: string): void {
    this.answers[what] = (this.answers[what] ?? 0) + 1;
  }

  private async sessionStatus(): Promise<void> {
    // The run's merchant's sessions (the ones its subscriptions watch), the newest first.
    const recent = this.subscriptions.watched.slice(-200);
    if (!recent.length) return;
    const { sessionId } = pick(recent);
    const answer = await this.client.retrying('read: session', () =>
      call('GET', `${this.rest}/payments/sessions/${sessionId}`, undefined, {
        authorization: `Bearer ${this.parties.merchant.key}`,
      }),
    );
    this.count(`read: session ${answer.status}`);
  }

  private async accounts(): Promise<void> {
    const grant = await this.grants.of(pick(this.parties.customers.slice(0, READ_PAYERS)));
    if (!grant) {
      if (Date.now() - this.grantsSince > GRANT_RETRY_MS) this.grants = this.newGrants();
      return;
    }
    const answer = await this.client.retrying('read: accounts', () =>
      call('GET', `${this.rest}/ob/accounts`, undefined, {
        authorization: `Bearer ${grant.accessToken}`,
        'x-consent-id': grant.consentId,
      }),
    );
    this.count(`read: accounts ${answer.status}`);
    if (answer.status === 401 && Date.now() - this.grantsSince > GRANT_RETRY_MS) this.grants = this.newGrants();
  }
}
