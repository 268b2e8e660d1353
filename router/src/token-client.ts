import type { EntityManager } from '@mikro-orm/postgresql';
import { GatewayError } from '@gateway/kernel';
import { vault } from '@gateway/vault';
import type { OperationSummary } from './operation';

/**
 * The token endpoint's root fields and the argument carrying the credential each redeems; null for
 * the client_credentials grant, PAR and revocation, which redeem none: their client is named only
 * by the assertion, which anyone can write (only open-banking checks its signature), so they are
 * limited by IP.
 */
const TOKEN_FIELDS: Record<string, string | null> = {
  exchangeAuthorizationCode: 'code',
  refreshAccessToken: 'refreshToken',
  requestClientCredentialsToken: null,
  pushAuthorizationRequest: null,
  revokeToken: null,
};

/**
 * The client (TPP) a token request is charged to (spec "Limits": POST /ob/token, 30 per minute
 * per client): the one the presented code or refresh token was issued to, found by one indexed
 * lookup of its hash. Unknown credentials give undefined and the request is limited by IP. The
 * consent_id is deliberately not used: it is no secret, so anyone could spend a TPP's budget
 * with it; only a holder of the TPP's own code or token can.
 */
export async function tokenRequestClient(em: EntityManager, operation: OperationSummary): Promise<string | undefined> {
  const requests = operation.fields.filter((field) => TOKEN_FIELDS[field.name] !== undefined);
  // One grant per request: aliases would otherwise run many redemptions on one point of the limit.
  if (requests.length > 1)
    throw new GatewayError(
      'VALIDATION_ERROR',
      'operation: one token request (exchangeAuthorizationCode, refreshAccessToken, requestClientCredentialsToken, pushAuthorizationRequest or revokeToken) per operation',
    );
  const [request] = requests;
  const argument = request && TOKEN_FIELDS[request.name];
  if (!argument) return undefined;
  const raw = request.args[argument];
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 256) return undefined;
  const credential = await vault.lookup(em, ['ob_authorization_code', 'ob_refresh_token'], raw);
  return credential?.clientId ?? undefined;
}
