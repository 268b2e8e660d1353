import type { EntityManager } from '@mikro-orm/postgresql';
import { CONFIGURED_ADMIN_KEY_OWNER, GatewayError, OPERATOR_SESSION_PREFIX, type Principal } from '@gateway/kernel';
import { vault } from '@gateway/vault';

/** Whether a bearer token is an operator console session (rest-compat sends it from its HttpOnly cookie). */
export const isOperatorSession = (token: string): boolean => token.startsWith(OPERATOR_SESSION_PREFIX);

/**
 * The admin a console session speaks for (issue 50): the named key it was exchanged for (its id
 * and name, so the audit log names the operator) or the configured ADMIN_KEY, marked as a console
 * session so that it cannot mint another. Refused once signed out, expired, or revoked with its
 * key (AdminKeyService.revoke revokes a key's sessions in its transaction).
 */
export async function operatorSessionPrincipal(em: EntityManager, token: string, ip: string): Promise<Principal> {
  const result = await vault.verify(em, 'operator_session', token);
  if (!result.ok) throw new GatewayError('UNAUTHORIZED', 'the operator console session has ended; sign in again');
  const { ownerId, label, scopes } = result.credential;
  return {
    kind: 'admin',
    ...(ownerId === CONFIGURED_ADMIN_KEY_OWNER ? {} : { id: ownerId }),
    name: label ?? ownerId,
    scopes: [...scopes],
    ip,
  };
}
