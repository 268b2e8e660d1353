import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode } from '@mikro-orm/core';
import { audit, SECRET_REPLACED, type AuditedBy } from '@gateway/audit';
import { GatewayError } from '@gateway/kernel';
import { vault } from '@gateway/vault';
import { TppEntity } from './tpp.entity';
import { tppNotFound } from './tpp.service';

/**
 * Replaces a TPP's access token (API-CONTRACT "Operator controls"): the old tpk_ is revoked in the
 * same transaction as the new one is issued, and the router verifies every request in the vault
 * uncached, so the old token is refused from the commit on. The TPP row is locked: two rotations
 * racing leave exactly one valid token. Consent tokens (at_, rt_) are the consents' own and stay.
 */
export async function rotateTppToken(em: EntityManager, id: string, by: AuditedBy): Promise<string> {
  return em.transactional(async (tx) => {
    const tpp = await tx.findOne(TppEntity, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!tpp) throw tppNotFound(id);
    // A fapi2 TPP authenticates with its keys: a bearer token would undo that.
    if (tpp.securityProfile === 'fapi2')
      throw new GatewayError(
        'FORBIDDEN',
        'a fapi2 TPP has no tpk_ token: it authenticates with private_key_jwt and uses client_credentials access tokens',
      );
    const { raw } = await vault.rotate(tx, { kind: 'tpp_key', ownerId: tpp.id, prefix: 'tpk_' });
    const changes = { tpp_access_token: SECRET_REPLACED };
    audit.record(tx, { actor: by.actor, action: 'tpp.token_rotated', target: tpp.id, changes }, by.logger);
    return raw;
  });
}
