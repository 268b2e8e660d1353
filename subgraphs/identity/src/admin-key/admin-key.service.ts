import type { EntityManager } from '@mikro-orm/postgresql';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { audit, SECRET_ISSUED, SECRET_REMOVED, type AuditedBy } from '@gateway/audit';
import { GatewayError, newId, parseInput } from '@gateway/kernel';
import { Credential, vault } from '@gateway/vault';
import { CONFIGURED_ADMIN_KEY_NAME, createAdminKeyRules } from './admin-key.rules';

/** The raw key's prefix: told apart from its id (adk_…), and refused by the audit log as a value. */
export const ADMIN_KEY_PREFIX = 'adk_sec_';

export interface CreatedAdminKey {
  credential: Credential;
  /** The raw key: returned to the operator once, never stored or logged. */
  raw: string;
}

const nameTaken = (name: string) =>
  new GatewayError('ADMIN_KEY_NAME_TAKEN', `name: a live admin key is already called ${JSON.stringify(name)}`);

/**
 * Named admin keys (API-CONTRACT "Operator controls"): one per operator, each a vault
 * credential of kind admin_key whose label is the operator's name, so the router's verification
 * gives the principal its name without another query. The configured ADMIN_KEY stays the first
 * key and lives in the environment, not here.
 */
export class AdminKeyService {
  async create(em: EntityManager, input: { name: string }, by: AuditedBy): Promise<CreatedAdminKey> {
    const { name } = parseInput(createAdminKeyRules, input);
    if (name.toUpperCase() === CONFIGURED_ADMIN_KEY_NAME) throw nameTaken(name);
    try {
      return await em.transactional(async (tx) => {
        if (await tx.findOne(Credential, { kind: 'admin_key', label: name, revokedAt: null })) throw nameTaken(name);
        const { raw, credential } = vault.issue(tx, {
          kind: 'admin_key',
          ownerId: newId('adminKey'),
          prefix: ADMIN_KEY_PREFIX,
          label: name,
        });
        const changes = { name: { to: name }, admin_key: SECRET_ISSUED };
        audit.record(
          tx,
          { actor: by.actor, action: 'admin_key.created', target: credential.ownerId, changes },
          by.logger,
        );
        return { raw, credential };
      });
    } catch (error) {
      // Two creations racing for one name: the partial unique index refuses the second.
      if (error instanceof UniqueConstraintViolationException) throw nameTaken(name);
      throw error;
    }
  }

  /** Every named key, newest first, revoked ones included (with when): a short list, never a secret. */
  async list(em: EntityManager): Promise<Credential[]> {
    return em.find(Credential, { kind: 'admin_key' }, { orderBy: { createdAt: 'desc', id: 'desc' } });
  }

  /**
   * Revokes the key at once: the router verifies every request in the vault without a cache, so
   * the next request with it is refused. Revoking a revoked key changes nothing and answers its
   * record (idempotent, no second audit entry); an unknown id is ADMIN_KEY_NOT_FOUND.
   */
  async revoke(em: EntityManager, id: string, by: AuditedBy): Promise<Credential> {
    return em.transactional(async (tx) => {
      const credential = await tx.findOne(Credential, { kind: 'admin_key', ownerId: id });
      if (!credential) throw new GatewayError('ADMIN_KEY_NOT_FOUND', `no admin key with id ${id}`);
      const now = new Date();
      // Conditional: of two revocations racing, one revokes and records; the other finds it done.
      if (await vault.revoke(tx, credential, now)) {
        const changes = { admin_key: SECRET_REMOVED, revoked_at: { from: null, to: now.toISOString() } };
        audit.record(tx, { actor: by.actor, action: 'admin_key.revoked', target: id, changes }, by.logger);
      }
      await tx.refresh(credential);
      return credential;
    });
  }
}
