import { createHash, randomBytes } from 'node:crypto';
import { call, type Answer } from '@gateway/rest-compat/testing';
import { bearer, type Customer, type PaymentBank } from './payments';
import type { TestPlatform } from './platform';

export const OB_SCOPES = ['accounts:read', 'balances:read', 'transactions:read', 'payments:write'];

/** Turns Open Banking on at a sandbox-backed bank (its own key, PATCH /banks/{handle}). */
export async function enableOpenBanking(t: TestPlatform, bank: Pick<PaymentBank, 'handle' | 'bankKey'>): Promise<void> {
  const answer = await t.rest('PATCH', `/banks/${bank.handle}`, {
    headers: { 'x-service-bank-key': bank.bankKey },
    body: { ob_enabled: true, ob_scopes_supported: OB_SCOPES, max_consent_expiry_days: 90 },
  });
  if (answer.status !== 200)
    throw new Error(`enabling Open Banking failed: ${answer.status} ${JSON.stringify(answer.body)}`);
}

export interface CreatedConsent {
  consentId: string;
  consentUrl: string;
  state: string;
  /** PKCE verifier of the consent's challenge (S256), for the token call. */
  codeVerifier: string;
}

/** A consent request by a TPP (POST /ob/consents), with a real S256 challenge. */
export async function createConsent(
  t: TestPlatform,
  tppAccessToken: string,
  body: { bank_handle: string; redirect_uri: string } & Record<string, unknown>,
): Promise<CreatedConsent> {
  const codeVerifier = randomBytes(32).toString('base64url');
  const state = (body.state as string | undefined) ?? randomBytes(12).toString('base64url');
  const answer = await t.rest('POST', '/ob/consents', {
    headers: bearer(tppAccessToken),
    body: {
      scopes: ['accounts:read', 'balances:read'],
      code_challenge: createHash('sha256').update(codeVerifier).digest('base64url'),
      code_challenge_method: 'S256',
      expiry_days: 30,
      ...body,
      state,
    },
  });
  if (answer.status !== 201)
    throw new Error(`consent creation failed: ${answer.status} ${JSON.stringify(answer.body)}`);
  return { consentId: answer.body.consent_id, consentUrl: answer.body.consent_url, state, codeVerifier };
}

/** The customer approves at the consent page's JSON endpoint; returns the redirect's query (code, consent_id, state, iss). */
export async function approveConsent(
  t: TestPlatform,
  consentId: string,
  customer: Pick<Customer, 'alias' | 'otp'>,
): Promise<URLSearchParams> {
  const answer = await t.rest('POST', `/ob/auth/${consentId}/approve`, {
    body: { customer: { type: 'alias', value: customer.alias }, otp: customer.otp },
  });
  if (answer.status !== 200) throw new Error(`approval failed: ${answer.status} ${JSON.stringify(answer.body)}`);
  return new URL(answer.body.redirect_to).searchParams;
}

/** The token the consent page is opened with: its reject form's page_token, as a browser gets it from the HTML page. */
export async function consentPageToken(baseUrl: string, consentId: string): Promise<string> {
  const page = await fetch(`${baseUrl}/ob/auth/${consentId}`, { headers: { accept: 'text/html' } });
  const token = /name="page_token" value="(cpt_[^"]+)"/.exec(await page.text())?.[1];
  if (page.status !== 200 || !token)
    throw new Error(`the consent page of ${consentId} carries no page token (${page.status})`);
  return token;
}

/** The customer rejects on the consent page: opens it, then posts the rejection with its token. */
export async function rejectOnConsentPage(baseUrl: string, consentId: string): Promise<Answer> {
  const pageToken = await consentPageToken(baseUrl, consentId);
  return call(baseUrl, 'POST', `/ob/auth/${consentId}/reject`, { body: { page_token: pageToken } });
}
