import { setTimeout as sleep } from 'node:timers/promises';
import { call, type Answer, type Client } from '../chaos/client';
import { Grants, type Grant } from '../chaos/grants';
import type { Customer, Parties } from '../chaos/onboarding';
import { pick } from '../chaos/random';

/** Each chore's clock (seconds). Consents and refreshes stay far below the 30 token requests a minute a TPP may make. */
const EVERY = { consent: 15, refresh: 20, dashboard: 10, report: 30 } as const;
/** The CSV report covers the sessions of the last this many minutes. */
const REPORT_MINUTES = 5;

/**
 * What the platform meets beside payments, each on its own clock while the load runs (issue 52):
 * an Open Banking consent made, approved, exchanged for tokens and revoked; one consent's token
 * pair refreshed (it rotates: the old pair dies) and used; the merchant's dashboard signed in,
 * read through its cookie and signed out; a CSV report of the recent sessions downloaded with the
 * dashboard's cookie. Each call is timed under its own operation name and counted by answer.
 */
export class Chores {
  readonly answers: Record<string, number> = {};
  private stopped = false;
  private loops: Array<Promise<void>> = [];
  /** The refreshed consent's current pair; made again when a step is refused. */
  private refreshed: Promise<Grant | undefined> | undefined;

  constructor(
    private readonly client: Client,
    private readonly rest: string,
    private readonly parties: Parties,
    /** Payers the chores' consents are made for: none of the payment orders' or the reads' own. */
    private readonly payers: Customer[],
  ) {}

  start(): void {
    const every = (seconds: number, chore: () => Promise<void>) =>
      (async () => {
        while (!this.stopped) {
          await sleep(seconds * 1000 * (0.5 + Math.random()));
          if (!this.stopped) await chore().catch((error) => this.count(`threw: ${String(error).slice(0, 80)}`));
        }
      })();
    this.loops = [
      every(EVERY.consent, () => this.consent()),
      every(EVERY.refresh, () => this.refresh()),
      every(EVERY.dashboard, () => this.dashboard()),
      every(EVERY.report, () => this.report()),
    ];
  }

  /** Stops the clocks; the chores under way end first. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.loops);
  }

  private count(what: string): void {
    this.answers[what] = (this.answers[what] ?? 0) + 1;
  }

  private grants(): Grants {
    return new Grants(this.client, this.rest, this.parties.tppToken, (what) => this.count(`refused: ${what}`));
  }

  /** A consent from creation to revocation: its tokens stop working at once. */
  private async consent(): Promise<void> {
    const grant = await this.grants().of(pick(this.payers));
    if (!grant) return;
    const revoked = await this.client.retrying('consent: revoke', () =>
      call('DELETE', `${this.rest}/ob/consents/${grant.consentId}`, undefined, {
        authorization: `Bearer ${this.parties.tppToken}`,
      }),
    );
    this.count(`consent: revoke ${revoked.status}`);
  }

  /** The token pair of one consent refreshed, and the new access token used. */
  private async refresh(): Promise<void> {
    const grants = this.grants();
    this.refreshed ??= grants.of(this.payers[0]!);
    const grant = await this.refreshed;
    if (!grant) return void (this.refreshed = undefined);
    const tokens = await this.client.retrying('token: refresh', () => grants.refresh(grant), 1);
    this.count(`token: refresh ${tokens.status}`);
    if (tokens.status !== 200) return void (this.refreshed = undefined);
    const next: Grant = {
      ...grant,
      accessToken: tokens.body.access_token as string,
      refreshToken: tokens.body.refresh_token as string,
      expiresAt: Date.now() + Number(tokens.body.expires_in ?? 300) * 1000,
    };
    this.refreshed = Promise.resolve(next);
    const accounts = await this.client.retrying('read: accounts (refreshed)', () =>
      call('GET', `${this.rest}/ob/accounts`, undefined, {
        authorization: `Bearer ${next.accessToken}`,
        'x-consent-id': next.consentId,
      }),
    );
    this.count(`read: accounts (refreshed) ${accounts.status}`);
  }

  /** The merchant's dashboard: signed in with its key, read through the cookie, signed out. */
  private async dashboard(): Promise<void> {
    const cookie = await this.signIn();
    if (!cookie) return;
    const browser = { cookie, origin: this.rest };
    const read = await this.client.retrying('dashboard: read', () =>
      call('POST', `${this.rest}/graphql`, { query: '{ currentMerchant { id } }' }, browser),
    );
    this.count(`dashboard: read ${read.status}${read.body?.errors ? ' with errors' : ''}`);
    const out = await this.client.retrying('dashboard: sign out', () =>
      call('DELETE', `${this.rest}/dashboard/session`, undefined, browser),
    );
    this.count(`dashboard: sign out ${out.status}`);
  }

  /** A CSV report of the last minutes' sessions, downloaded as the dashboard's link does (its cookie). */
  private async report(): Promise<void> {
    const cookie = await this.signIn();
    if (!cookie) return;
    const to = new Date();
    const from = new Date(to.getTime() - REPORT_MINUTES * 60_000);
    const query = new URLSearchParams({ from: from.toISOString(), to: to.toISOString() });
    const headers = { cookie, 'sec-fetch-site': 'same-origin' };
    const report = await this.client.retrying('report: sessions.csv', () =>
      text(`${this.rest}/reports/sessions.csv?${query}`, headers),
    );
    const rows = typeof report.body === 'string' ? report.body.split('\n').filter(Boolean).length - 1 : 0;
    this.count(`report: sessions.csv ${report.status}${report.status === 200 && rows <= 0 ? ' empty' : ''}`);
    await call('DELETE', `${this.rest}/dashboard/session`, undefined, { cookie, origin: this.rest });
  }

  /** POST /dashboard/session with the merchant's key: the session cookie (name=value), or none when refused. */
  private async signIn(): Promise<string | undefined> {
    let cookie: string | undefined;
    const answer = await this.client.retrying('dashboard: sign in', async () => {
      try {
        const response = await fetch(`${this.rest}/dashboard/session`, {
          method: 'POST',
          headers: { authorization: `Bearer ${this.parties.merchant.key}`, origin: this.rest },
          signal: AbortSignal.timeout(30_000),
        });
        cookie = response.headers.getSetCookie()[0]?.split(';')[0];
        await response.body?.cancel();
        return { status: response.status, body: undefined };
      } catch (error) {
        return { status: 0, body: String(error) };
      }
    });
    this.count(`dashboard: sign in ${answer.status}`);
    return answer.status === 200 || answer.status === 201 ? cookie : undefined;
  }
}

/** A GET whose answer is text (a CSV), read whole. */
async function text(url: string, headers: Record<string, string>): Promise<Answer> {
  try {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(60_000) });
    return { status: response.status, body: await response.text() };
  } catch (error) {
    return { status: 0, body: String(error) };
  }
}
