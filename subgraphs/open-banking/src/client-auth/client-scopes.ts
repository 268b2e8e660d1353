import { GatewayError, type Principal } from '@gateway/kernel';
import type { TppEntity } from '../tpp/tpp.entity';

/**
 * The scopes of a fapi2 TPP's client_credentials access token (RFC 6749 4.4), as UK Open Banking
 * names them: `accounts` lets it ask for account-information consents, `payments` for consents
 * that may pay. Asked for with `scope` at the token endpoint; both when it sends none.
 */
export const CLIENT_SCOPES = ['accounts', 'payments'] as const;
export type ClientScope = (typeof CLIENT_SCOPES)[number];

/** The client scope a consent scope needs. */
const NEEDED: Record<string, ClientScope> = {
  'accounts:read': 'accounts',
  'balances:read': 'accounts',
  'transactions:read': 'accounts',
  'payments:write': 'payments',
  // Confirmation of funds reads (a yes or no about) an account: asked for under `accounts`.
  funds_confirmation: 'accounts',
  // A VRP consent pays: asked for under `payments`, as UK Open Banking's domestic-vrp-consents are.
  vrp_payments: 'payments',
};

/** A TPP principal: its tpk_ token (no scopes) or a client_credentials token (its granted scopes). */
export type TppCaller = Pick<Principal, 'scopes'> & { id: string };

/**
 * A fapi2 TPP creates consents with its client_credentials token only, carrying the client scope
 * each consent scope needs; its tpk_ (it is issued none, and rotation refuses to make one) would
 * have no scopes and is refused the same way. A spec TPP is not asked anything: the spec's flow.
 */
export function assertClientScopes(tpp: Pick<TppEntity, 'securityProfile'>, caller: TppCaller, scopes: string[]): void {
  if (tpp.securityProfile !== 'fapi2') return;
  if (caller.scopes === undefined)
    throw new GatewayError(
      'FORBIDDEN',
      'a fapi2 TPP creates consents with an access token of the client_credentials grant (private_key_jwt), not a tpk_ token',
    );
  const missing = [...new Set(scopes.map((scope) => NEEDED[scope]).filter((need) => need !== undefined))].filter(
    (need) => !caller.scopes!.includes(need),
  );
  if (missing.length > 0)
    throw new GatewayError(
      'FORBIDDEN',
      `this access token lacks the client scope ${missing.join(' and ')} these consent scopes need`,
    );
}
