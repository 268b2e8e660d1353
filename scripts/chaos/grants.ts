import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { call, type Answer, type Client } from './client';
import { OB_REDIRECT, type Customer } from './onboarding';

export interface Grant {
  consentId: string;
  accessToken: string;
  refreshToken: string;
  /** When the access token stops working (epoch ms): it is refreshed a minute before. */
  expiresAt: number;
  accountId: string;
}

/** An access token this close to its end is refreshed before use (the platform's live 15 minutes). */
const REFRESH_BEFORE_MS = 60_000;
const expiresAt = (tokens: Answer) => Date.now() + Number(tokens.body?.expires_in ?? 300) * 1000;

/**
 * One payments:write consent per payer, approved at the consent endpoint with the OTP and
 * exchanged for tokens (PKCE), made once and reused by every payment order of that payer.
 */
export class Grants {
  private readonly grants = new Map<string, Promise<Grant | undefined>>();
  /** A refresh under way by payer: every caller meanwhile waits for the new pair (the old one dies with it). */
  private readonly refreshing = new Map<string, Promise<Grant | undefined>>();

  constructor(
    private readonly client: Client,
    private readonly rest: string,
    private readonly tppToken: string,
    /** Records a refusal or a call left unanswered (the run's "refused or unanswered"). */
    private readonly note: (what: string) => void,
  ) {}

  /**
   * The payer's grant, its token refreshed when close to its end (a soak outlasts the 15 minutes
   * of an access token); undefined when a step was refused (noted).
   */
  async of(payer: Customer): Promise<Grant | undefined> {
    if (!this.grants.has(payer.alias)) this.grants.set(payer.alias, this.grant(payer));
    const grant = await this.grants.get(payer.alias)!;
    if (!grant || grant.expiresAt - Date.now() > REFRESH_BEFORE_MS) return grant;
    let refreshing = this.refreshing.get(payer.alias);
    if (!refreshing) {
      refreshing = this.renewed(grant).finally(() => this.refreshing.delete(payer.alias));
      this.refreshing.set(payer.alias, refreshing);
      this.grants.set(payer.alias, refreshing);
    }
    return refreshing;
  }

  private async renewed(grant: Grant): Promise<Grant | undefined> {
    const tokens = await this.client.retrying('token: refresh', () => this.refresh(grant), 1);
    if (tokens.status !== 200)
      return void this.note(`token refresh ${tokens.status} ${tokens.body?.error?.code ?? ''}`.trim());
    return {
      ...grant,
      accessToken: tokens.body.access_token as string,
      refreshToken: tokens.body.refresh_token as string,
      expiresAt: expiresAt(tokens),
    };
  }

  private async grant(payer: Customer): Promise<Grant | undefined> {
    const { client, rest } = this;
    const verifier = randomBytes(32).toString('base64url');
    const consent = await client.retrying('consent', () =>
      call(
        'POST',
        `${rest}/ob/consents`,
        {
          bank_handle: payer.bank,
          scopes: ['accounts:read', 'payments:write'],
          redirect_uri: OB_REDIRECT,
          state: 'chaos',
          code_challenge: createHash('sha256').update(verifier).digest('base64url'),
          code_challenge_method: 'S256',
          expiry_days: 30,
        },
        { authorization: `Bearer ${this.tppToken}` },
      ),
    );
    if (consent.status !== 201)
      return void this.note(`consent ${consent.status} ${consent.body?.error?.code ?? ''}`.trim());
    const consentId = consent.body.consent_id as string;
    const approved = await client.retrying(
      'approve',
      () =>
        call('POST', `${rest}/ob/auth/${consentId}/approve`, {
          customer: { type: 'alias', value: payer.alias },
          otp: payer.otp,
        }),
      6,
    );
    if (approved.status !== 200)
      return void this.note(`consent approve ${approved.status} ${approved.body?.error?.code ?? ''}`.trim());
    const code = new URL(approved.body.redirect_to).searchParams.get('code')!;
    const tokens = await this.exchange(
      new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: OB_REDIRECT,
        consent_id: consentId,
        code_verifier: verifier,
      }),
    );
    if (tokens.status !== 200) return void this.note(`token ${tokens.status} ${tokens.body?.error?.code ?? ''}`.trim());
    const headers = { authorization: `Bearer ${tokens.body.access_token}`, 'x-consent-id': consentId };
    const accounts = await client.retrying('accounts', () => call('GET', `${rest}/ob/accounts`, undefined, headers));
    if (accounts.status !== 200)
      return void this.note(`ob accounts ${accounts.status} ${accounts.body?.error?.code ?? ''}`.trim());
    return {
      consentId,
      accessToken: tokens.body.access_token as string,
      refreshToken: tokens.body.refresh_token as string,
      expiresAt: expiresAt(tokens),
      accountId: accounts.body.accounts[0].account_id as string,
    };
  }

  /** The refresh_token grant: the answer (a new pair; the old one stops working at once). */
  refresh(grant: Grant): Promise<Answer> {
    return this.exchange(
      new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: grant.refreshToken,
        consent_id: grant.consentId,
      }),
    );
  }

  /** The token request (a form, not JSON), tried up to ten times while unanswered or 5xx. */
  private async exchange(form: URLSearchParams): Promise<Answer> {
    let tokens: Answer = { status: 0, body: undefined };
    for (let i = 0; i < 10 && (tokens.status === 0 || tokens.status >= 500); i++) {
      try {
        const response = await fetch(`${this.rest}/ob/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: form.toString(),
          signal: AbortSignal.timeout(30_000),
        });
        tokens = { status: response.status, body: await response.json().catch(() => undefined) };
      } catch {
        await sleep(500);
      }
    }
    return tokens;
  }
}
