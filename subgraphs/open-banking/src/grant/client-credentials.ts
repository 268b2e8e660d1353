import type { EntityManager } from '@mikro-orm/postgresql';
import { GatewayError, ID_PREFIX, invalid, parseInput } from '@gateway/kernel';
import { vault } from '@gateway/vault';
import { CLIENT_SCOPES, type ClientScope } from '../client-auth/client-scopes';
import { ACCESS_TOKEN_TTL_SECONDS } from './token.issue';
import { clientCredentialsRules } from './token.rules';
import type { TokenService } from './token.service';

export const CLIENT_TOKEN_PREFIX = `${ID_PREFIX.clientToken}_`;

/** The client_credentials token response (RFC 6749 4.4.3: no refresh token), camelCase. */
export interface IssuedClientToken {
  accessToken: string;
  tokenType: 'DPoP';
  expiresIn: number;
  scope: string;
}

/** `scope` as sent (space-separated, RFC 6749 3.3), or every client scope when none is asked for. */
function scopesAsked(scope: string | null | undefined): ClientScope[] {
  const asked = (scope ?? '').split(' ').filter(Boolean);
  if (asked.length === 0) return [...CLIENT_SCOPES];
  const unknown = asked.filter((name) => !CLIENT_SCOPES.includes(name as ClientScope));
  if (unknown.length > 0)
    throw invalid(
      'scope',
      `${unknown.join(', ')} unknown: ask for ${CLIENT_SCOPES.join(' and/or ')} (RFC 6749 invalid_scope)`,
    );
  return CLIENT_SCOPES.filter((name) => asked.includes(name));
}

/**
 * grant_type=client_credentials (RFC 6749 4.4) for fapi2 TPPs: an access token (cat_…) standing
 * for the TPP itself, with which it creates and reads its consents and payment orders where a spec
 * TPP uses its tpk_. Only after private_key_jwt client authentication: a fapi2 TPP has no other
 * credential, and a spec TPP none this grant takes. Opaque and stored as its SHA-256 in the vault
 * like every token; 15 minutes, as consent access tokens; no refresh token (RFC 6749 4.4.3).
 * Always DPoP-bound (RFC 9449) to the key of the request's proof, as a fapi2 client's tokens are.
 */
export async function issueClientToken(
  root: EntityManager,
  tokens: Pick<TokenService, 'callerOf'>,
  input: unknown,
  now = new Date(),
): Promise<IssuedClientToken> {
  const request = parseInput(clientCredentialsRules, input);
  const { client: tpp, key } = await tokens.callerOf(root, request, now);
  if (!tpp || !key)
    throw new GatewayError(
      'INVALID_CLIENT',
      'client authentication required: the client_credentials grant is for fapi2 clients, with private_key_jwt (client_assertion_type and client_assertion)',
    );
  const scopes = scopesAsked(request.scope);
  const accessToken = await root.fork().transactional(
    async (tx) =>
      vault.issue(tx, {
        kind: 'ob_client_token',
        ownerId: tpp.id,
        clientId: tpp.id,
        prefix: CLIENT_TOKEN_PREFIX,
        scopes,
        keyThumbprint: key,
        expiresAt: new Date(now.getTime() + ACCESS_TOKEN_TTL_SECONDS * 1000),
      }).raw,
  );
  return { accessToken, tokenType: 'DPoP', expiresIn: ACCESS_TOKEN_TTL_SECONDS, scope: scopes.join(' ') };
}
