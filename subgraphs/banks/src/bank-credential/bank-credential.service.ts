import type { EntityManager } from '@mikro-orm/postgresql';
import { audit, SECRET_REMOVED, SECRET_REPLACED, type AuditChange, type AuditedBy } from '@gateway/audit';
import { newSecret, sealSecret } from '@gateway/kernel';
import { vault } from '@gateway/vault';
import { lockBank } from '../bank/bank-lock';
import { recordInternalKeyRotated } from './bank-credential.events';

export interface BankCredentialSettings {
  platformSecret: string;
  /** INTERNAL_KEY_GRACE_SECONDS: how long a rotated internal key is still accepted on the core's callbacks. */
  internalKeyGraceSeconds: number;
}

export interface InternalKeyRotation {
  /** The new internal key: shown once; the gateway presents it to the core from now on. */
  internalKey: string;
  /** Until when the previous key is still accepted on the core's callbacks. */
  previousKeyExpiresAt: Date;
}

/** A sandbox core's key speaks for the bank's test world only; rotations of the live key leave it alone. */
const isSandboxKey = (credential: { scopes: string[] }) => credential.scopes.includes('test');

/**
 * Containment of a bank's leaked credentials (API-CONTRACT "Operator controls"): an operator
 * revokes the bank key at once; the internal key is rotated with a grace window for callbacks.
 * Each change records its audit entry in the same transaction.
 */
export class BankCredentialService {
  constructor(private readonly settings: BankCredentialSettings) {}

  /**
   * Revokes every live bank key of the bank at once (the router verifies each request in the
   * vault, uncached): the bank then gets a new one from the operator (rotateBankKey). The number
   * of keys revoked; 0 when none was live (still recorded, with no changes: an operator acted).
   */
  async revokeBankKey(em: EntityManager, handle: string, by: AuditedBy): Promise<number> {
    return em.transactional(async (tx) => {
      const bank = await lockBank(tx, handle);
      const revoked = await vault.revokeAll(tx, 'bank_key', bank.handle);
      const changes: Record<string, AuditChange> = revoked > 0 ? { bank_key: SECRET_REMOVED } : {};
      audit.record(tx, { actor: by.actor, action: 'bank.key_revoked', target: bank.handle, changes }, by.logger);
      return revoked;
    });
  }

  /**
   * A new internal key, sealed for the gateway's core calls and hashed for the core's callbacks.
   * The previous live key is not revoked but ends after the grace period: a core still sending
   * it on callbacks keeps working while the bank installs the new one. The sandbox core's key is
   * untouched. The event tells the services caching the bank's routing to drop it, so the new
   * key goes out on the next core call.
   */
  async rotateInternalKey(em: EntityManager, handle: string, by: AuditedBy): Promise<InternalKeyRotation> {
    const internalKey = newSecret('sik_');
    return em.transactional(async (tx) => {
      const bank = await lockBank(tx, handle);
      const now = new Date();
      const previousKeyExpiresAt = new Date(now.getTime() + this.settings.internalKeyGraceSeconds * 1000);
      await vault.expireAt(tx, 'internal_key', bank.handle, previousKeyExpiresAt, isSandboxKey);
      vault.issue(tx, { kind: 'internal_key', ownerId: bank.handle, prefix: '', raw: internalKey });
      bank.internalKeySealed = sealSecret(internalKey, this.settings.platformSecret);
      recordInternalKeyRotated(tx, bank, now);
      // Replaced for the gateway's core calls now, for the core's callbacks when the grace ends.
      const changes = {
        internal_key: SECRET_REPLACED,
        previous_key_expires_at: { to: previousKeyExpiresAt.toISOString() },
      };
      const record = { actor: by.actor, action: 'bank.internal_key_rotated' as const, target: bank.handle, changes };
      audit.record(tx, record, by.logger);
      return { internalKey, previousKeyExpiresAt };
    });
  }
}
