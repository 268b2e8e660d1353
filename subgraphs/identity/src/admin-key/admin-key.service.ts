import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import { audit, SECRET_ISSUED, SECRET_REMOVED, type AuditedBy } from '@gateway/audit';
import { ADMIN_KEY_PREFIX, GatewayError, newId, parseInput } from '@gateway/kernel';
import { Credential, vault } from '@gateway/vault';
import { CONFIGURED_ADMIN_KEY_NAME, createAdminKeyRules } from './admin-key.rules';

export interface CreatedAdminKey {
  credential: Credential;
  /** The raw key: returned to the operator once, never stored or logged. */
  raw: string;
}

export interface RevokedAdminKey {
  credential: Credential;
  /** Every key it created, and theirs, transitively, oldest first: all revoked now. */
  lineage: Credential[];
}

const nameTaken = (name: string) =>
  new GatewayError('ADMIN_KEY_NAME_TAKEN', `name: a live admin key is already called ${JSON.stringify(name)}`);

/** Lineage is a tree of a few keys; a deeper one is a loop in the data, not operators. */
const MAX_LINEAGE_DEPTH = 64;

/**
 * Named admin keys (API-CONTRACT "Operator controls"): one per operator, each a vault
 * credential of kind admin_key whose label is the operator's name, so the router's verification
 * gives the principal its name without another query. The configured ADMIN_KEY stays the first
 * key and lives in the environment, not here. Each key records the key that created it
 * (created_by), and revoking a key revokes its lineage (issue 46).
 */
export class AdminKeyService {
  async create(em: EntityManager, input: { name: string }, by: AuditedBy): Promise<CreatedAdminKey> {
    const { name } = parseInput(createAdminKeyRules, input);
    try {
      return await em.transactional(async (tx) => {
        const createdBy = await this.liveMaker(tx, by);
        if (await tx.findOne(Credential, { kind: 'admin_key', label: name, revokedAt: null })) throw nameTaken(name);
        const { raw, credential } = vault.issue(tx, {
          kind: 'admin_key',
          ownerId: newId('adminKey'),
          prefix: ADMIN_KEY_PREFIX,
          label: name,
          createdBy,
        });
        const changes = { name: { to: name }, created_by: { to: createdBy }, admin_key: SECRET_ISSUED };
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
   * Revokes the key at once, and in the same transaction every key it created, and theirs
   * (transitively), each with its own `admin_key.revoked` entry naming the key whose revocation
   * took it (`revoked_with`): a key cannot leave a backdoor behind it. The router verifies every
   * request in the vault without a cache, and its socket sweep re-verifies open subscriptions
   * every 2 s, so the next request with any of them is refused and their sockets close. Revoking a
   * revoked key answers its record and lineage again, revoking what of the lineage is still live
   * (a key made before lineage was recorded); what was already revoked gets no second entry. An
   * unknown id is ADMIN_KEY_NOT_FOUND.
   */
  async revoke(em: EntityManager, id: string, by: AuditedBy): Promise<RevokedAdminKey> {
    return em.transactional(async (tx) => {
      const credential = await tx.findOne(Credential, { kind: 'admin_key', ownerId: id });
      if (!credential) throw new GatewayError('ADMIN_KEY_NOT_FOUND', `no admin key with id ${id}`);
      const now = new Date();
      const revoked = (target: Credential, revokedWith?: string) => {
        const changes = {
          admin_key: SECRET_REMOVED,
          revoked_at: { from: null, to: now.toISOString() },
          ...(revokedWith ? { revoked_with: { to: revokedWith } } : {}),
        };
        audit.record(tx, { actor: by.actor, action: 'admin_key.revoked', target: target.ownerId, changes }, by.logger);
      };
      // Conditional: of two revocations racing, one revokes and records; the other finds it done.
      if (await vault.revoke(tx, credential, now)) revoked(credential);
      const lineage = await this.revokeLineage(tx, id, now, (child) => revoked(child, id));
      // Their operator console sessions end with them (issue 50): the next click is refused.
      await tx.nativeUpdate(
        Credential,
        { kind: 'operator_session', ownerId: { $in: [id, ...lineage] }, revokedAt: null },
        { revokedAt: now },
      );
      const rows = await tx.find(
        Credential,
        { kind: 'admin_key', ownerId: { $in: [id, ...lineage] } },
        { disableIdentityMap: true, orderBy: { createdAt: 'asc', id: 'asc' } },
      );
      return {
        credential: rows.find((row) => row.ownerId === id)!,
        lineage: rows.filter((row) => row.ownerId !== id),
      };
    });
  }

  /**
   * Revokes the keys `id` created, and theirs, one generation at a time, and answers their ids.
   * Each generation is read only after the one above it was revoked (its rows updated, so
   * locked): a creation by one of those keys holds the same row lock while it writes (liveMaker),
   * so its new key is either committed before the read and found, or refused because its maker
   * is revoked. Revoked keys are followed too: one made before lineage was recorded may be live
   * under a revoked one. `onRevoked`: a key this call revoked (not one revoked before).
   */
  private async revokeLineage(
    tx: EntityManager,
    id: string,
    now: Date,
    onRevoked: (key: Credential) => void,
  ): Promise<string[]> {
    const seen = new Set([id]);
    let makers = [id];
    for (let depth = 0; makers.length && depth < MAX_LINEAGE_DEPTH; depth += 1) {
      const children = await tx.find(
        Credential,
        { kind: 'admin_key', createdBy: { $in: makers } },
        { disableIdentityMap: true, orderBy: { createdAt: 'asc', id: 'asc' } },
      );
      makers = [];
      for (const child of children) {
        if (seen.has(child.ownerId)) continue;
        seen.add(child.ownerId);
        makers.push(child.ownerId);
        if (await vault.revoke(tx, child, now)) onRevoked(child);
      }
    }
    seen.delete(id);
    return [...seen];
  }

  /**
   * The maker a new key records: the acting named key's id, locked while the new key is written
   * and refused once revoked (a revocation racing this creation either waits for it and then
   * finds the new key, or commits first and this creation is refused), or ADMIN_KEY for the
   * configured key, which has no row and cannot be revoked.
   */
  private async liveMaker(tx: EntityManager, by: AuditedBy): Promise<string> {
    const id = by.actor.id;
    if (id === undefined) return CONFIGURED_ADMIN_KEY_NAME;
    const maker = await tx.findOne(
      Credential,
      { kind: 'admin_key', ownerId: id, revokedAt: null },
      { lockMode: LockMode.PESSIMISTIC_WRITE, disableIdentityMap: true },
    );
    if (!maker) throw new GatewayError('UNAUTHORIZED', 'the admin key making this one has been revoked');
    return id;
  }
}
