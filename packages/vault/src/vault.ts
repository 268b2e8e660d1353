import type { EntityManager } from '@mikro-orm/postgresql';
import { newId, newSecret, safeEqual, sha256Hex } from '@gateway/kernel';
import { Credential, type CredentialKind } from './credential.entity';

export interface IssueOptions {
  kind: CredentialKind;
  ownerId: string;
  /** Recognisable prefix of the raw secret, e.g. `mk_test_`, `sbk_<handle>_`. */
  prefix: string;
  scopes?: string[];
  family?: string;
  expiresAt?: Date;
  /** A secret chosen elsewhere (a bank's own internal key); generated when omitted. */
  raw?: string;
}

export interface IssuedCredential {
  /** The raw secret: give it to the caller once, never store or log it. */
  raw: string;
  credential: Credential;
}

export type VerifyFailure = 'unknown' | 'revoked' | 'expired';
export type VerifyResult = { ok: true; credential: Credential } | { ok: false; reason: VerifyFailure; credential?: Credential };

/**
 * Issue, verify, rotate and revoke platform secrets. Every write goes through the caller's
 * EntityManager so it commits (or rolls back) with the owner's own change; verification is one
 * indexed lookup with no cache, which is what makes rotation and revocation instant.
 */
export const vault = {
  issue(em: EntityManager, options: IssueOptions): IssuedCredential {
    const raw = options.raw ?? newSecret(options.prefix);
    const credential = em.create(Credential, {
      id: newId('credential'),
      kind: options.kind,
      hash: sha256Hex(raw),
      ownerId: options.ownerId,
      scopes: options.scopes ?? [],
      family: options.family ?? null,
      expiresAt: options.expiresAt ?? null,
      revokedAt: null,
      createdAt: new Date(),
    });
    return { raw, credential };
  },

  /** Revokes every live credential of this kind for the owner, then issues a new one. */
  async rotate(em: EntityManager, options: IssueOptions): Promise<IssuedCredential> {
    await vault.revokeAll(em, options.kind, options.ownerId);
    return vault.issue(em, options);
  },

  async revokeAll(em: EntityManager, kind: CredentialKind, ownerId: string, now = new Date()): Promise<number> {
    return em.nativeUpdate(Credential, { kind, ownerId, revokedAt: null }, { revokedAt: now });
  },

  async revokeFamily(em: EntityManager, family: string, now = new Date()): Promise<number> {
    return em.nativeUpdate(Credential, { family, revokedAt: null }, { revokedAt: now });
  },

  async verify(em: EntityManager, kinds: CredentialKind | CredentialKind[], raw: string, now = new Date()): Promise<VerifyResult> {
    const hash = sha256Hex(raw);
    const credential = await em.findOne(Credential, { hash }, { disableIdentityMap: true });
    const wanted = Array.isArray(kinds) ? kinds : [kinds];
    // The hash lookup already matched; the constant-time re-check keeps the comparison itself
    // from depending on where the strings differ.
    if (!credential || !wanted.includes(credential.kind) || !safeEqual(credential.hash, hash)) {
      return { ok: false, reason: 'unknown' };
    }
    if (credential.revokedAt) return { ok: false, reason: 'revoked', credential };
    if (credential.expiresAt && credential.expiresAt.getTime() <= now.getTime()) {
      return { ok: false, reason: 'expired', credential };
    }
    return { ok: true, credential };
  },
};
