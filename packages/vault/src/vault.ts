import type { EntityManager } from '@mikro-orm/postgresql';
import { rawQuery, type OneStatement } from '@gateway/db';
import DataLoader from 'dataloader';
import { newId, newSecret, safeEqual, sha256Hex } from '@gateway/kernel';
import { Credential, type CredentialKind } from './credential.entity';
import { clearSuspended, markSuspended } from './suspension';

export interface IssueOptions {
  kind: CredentialKind;
  ownerId: string;
  /** Recognisable prefix of the raw secret, e.g. `mk_test_`, `sbk_<handle>_`. */
  prefix: string;
  scopes?: string[];
  family?: string;
  /** The client it is issued to (the TPP of an OB code or token): its rate-limit key. */
  clientId?: string;
  expiresAt?: Date;
  /** A display name stored beside the hash (an admin key's name): verify() hands it back, no other query needed. */
  label?: string;
  /** The admin key that issues it (an admin key's maker): see Credential.createdBy. */
  createdBy?: string;
  /** The DPoP key the token is bound to (RFC 9449 cnf.jkt): see Credential.keyThumbprint. */
  keyThumbprint?: string;
  /** A secret chosen elsewhere (a bank's own internal key); generated when omitted. */
  raw?: string;
}

export interface IssuedCredential {
  /** The raw secret: give it to the caller once, never store or log it. */
  raw: string;
  credential: Credential;
}

/**
 * `used`: a single-use credential already spent (vault.consume), presented again. `suspended`:
 * a live credential of a participant an operator suspended (vault.suspend); it works again on
 * resume.
 */
export type VerifyFailure = 'unknown' | 'used' | 'revoked' | 'expired' | 'suspended';
export type VerifyResult =
  { ok: true; credential: Credential } | { ok: false; reason: VerifyFailure; credential?: Credential };

/**
 * Kinds that keep working while their owner is suspended. A bank's internal key authenticates its
 * core's callbacks: the movements in flight when the bank was suspended must still be confirmed
 * and settled (API-CONTRACT "Operator controls": movements in flight finish).
 */
const SUSPENSION_EXEMPT: ReadonlySet<CredentialKind> = new Set(['internal_key']);

/** The credential's row with whether its participant is suspended, in one statement. */
const WITH_SUSPENSION = { disableIdentityMap: true, populate: ['participantSuspended'] } as const;

/** Per ORM (its driver, which every fork shares): the hash lookups waiting for the next statement. */
const lookups = new WeakMap<object, DataLoader<string, Credential | null>>();

/**
 * The credentials with any of the hashes (bound as one text[]) and whether each one's participant
 * is suspended (Credential.participantSuspended's formula): the same text for every batch, so it
 * is prepared and planned once, where the ORM's `hash in (…)` was a new text for each batch size
 * and built anew for each batch (issue 53: 42 µs of the router's work a request).
 */
const BY_HASHES = `select c.*, exists (select 1 from "auth"."suspended_owners" as "suspended"
    where "suspended"."owner_id" in (c."owner_id", c."client_id")) as "participant_suspended"
  from "auth"."credentials" as c where c."hash" = any(?::text[])`;

interface CredentialRow {
  id: string;
  kind: CredentialKind;
  hash: string;
  owner_id: string;
  scopes: string[];
  family: string | null;
  client_id: string | null;
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  label: string | null;
  created_by: string | null;
  key_thumbprint: string | null;
  used_at: Date | null;
  participant_suspended: boolean;
}

/**
 * A row of BY_HASHES as the entity, every property set (vault.spec holds it equal to the ORM's
 * mapping of a row with every column set, and fails on a property added to the entity only).
 * Held by no identity map: a verification reads, never writes, the credential it answers.
 */
export function credentialOf(row: CredentialRow): Credential {
  const credential = new Credential();
  credential.id = row.id;
  credential.kind = row.kind;
  credential.hash = row.hash;
  credential.ownerId = row.owner_id;
  credential.scopes = row.scopes;
  credential.family = row.family;
  credential.clientId = row.client_id;
  credential.createdAt = row.created_at;
  credential.expiresAt = row.expires_at;
  credential.revokedAt = row.revoked_at;
  credential.label = row.label;
  credential.createdBy = row.created_by;
  credential.keyThumbprint = row.key_thumbprint;
  credential.usedAt = row.used_at;
  credential.participantSuspended = row.participant_suspended;
  return credential;
}

/**
 * The credential with this hash, as the database has it when the lookup is sent. Lookups asked
 * within one turn of the event loop go as one statement (`hash = any(…)`): under load the router
 * verifies many requests' credentials at once, and each statement costs CPU on both sides
 * (issue 15). No cache: every lookup is sent after it was asked, so a revocation committed
 * before a request arrived is always seen. Inside a transaction, the transaction's own query.
 */
function findByHash(em: EntityManager, hash: string): Promise<Credential | null> {
  if (em.isInTransaction()) return em.findOne(Credential, { hash }, WITH_SUSPENSION);
  const driver = em.getDriver();
  let loader = lookups.get(driver);
  if (!loader) {
    const knex = em.getKnex();
    loader = new DataLoader<string, Credential | null>(
      async (hashes) => {
        // Hashes are SHA-256 in hex: an array literal of them needs no quoting.
        const { rows } = await rawQuery<CredentialRow>(knex, BY_HASHES, [`{${hashes.join(',')}}`]);
        const byHash = new Map(rows.map((row) => [row.hash, credentialOf(row)]));
        return hashes.map((wanted) => byHash.get(wanted) ?? null);
      },
      { cache: false, batchScheduleFn: (send) => setImmediate(send) },
    );
    lookups.set(driver, loader);
  }
  return loader.load(hash);
}

/**
 * Issue, verify, rotate and revoke platform secrets. Every write goes through the caller's
 * EntityManager so it commits (or rolls back) with the owner's own change; verification is one
 * indexed lookup with no cache (concurrent ones share a statement), which is what makes
 * rotation and revocation instant.
 */
export const vault = {
  issue(em: EntityManager, options: IssueOptions): IssuedCredential {
    const { raw, row } = newCredential(options);
    return { raw, credential: em.create(Credential, row) };
  },

  /** issue() as part `name` of the caller's OneStatement, written only if part `when` changed a row: the raw secret, to show once. */
  issueIn(statement: OneStatement, name: string, options: IssueOptions, when?: string): string {
    const { raw, row } = newCredential(options);
    statement.insert(name, Credential, row, when);
    return raw;
  },

  /** Revokes every live credential of this kind for the owner, then issues a new one. */
  async rotate(em: EntityManager, options: IssueOptions): Promise<IssuedCredential> {
    await vault.revokeAll(em, options.kind, options.ownerId);
    return vault.issue(em, options);
  },

  async revokeAll(em: EntityManager, kind: CredentialKind, ownerId: string, now = new Date()): Promise<number> {
    return em.nativeUpdate(Credential, { kind, ownerId, revokedAt: null }, { revokedAt: now });
  },

  /**
   * Ends the live credentials of this kind and owner at `until` instead of at once (a rotated
   * internal key, still accepted on callbacks for a grace period); those already ending sooner
   * keep their end, and those `keep` picks out (a sandbox core's key) are left alone. The count
   * of credentials given an end.
   */
  async expireAt(
    em: EntityManager,
    kind: CredentialKind,
    ownerId: string,
    until: Date,
    keep: (credential: Credential) => boolean = () => false,
  ): Promise<number> {
    const live = await em.find(
      Credential,
      { kind, ownerId, revokedAt: null, $or: [{ expiresAt: null }, { expiresAt: { $gt: until } }] },
      { disableIdentityMap: true },
    );
    const ending = live.filter((credential) => !keep(credential)).map((credential) => credential.id);
    if (!ending.length) return 0;
    return em.nativeUpdate(Credential, { id: { $in: ending } }, { expiresAt: until });
  },

  /**
   * Revokes every live credential a participant owns or was issued as client (a TPP's registration
   * and client tokens, and every code and token of its consents): a client deleted for good (RFC
   * 7592). The count revoked.
   */
  async revokeEverythingOf(em: EntityManager, participantId: string, now = new Date()): Promise<number> {
    return em.nativeUpdate(
      Credential,
      { $or: [{ ownerId: participantId }, { clientId: participantId }], revokedAt: null },
      { revokedAt: now },
    );
  },

  /**
   * How many credentials of this kind the owner holds that still work (not revoked, not expired):
   * what revoking them all or suspending the owner would end (the operator console says it, issue 50).
   */
  async countLive(em: EntityManager, kind: CredentialKind, ownerId: string, now = new Date()): Promise<number> {
    return em.count(Credential, {
      kind,
      ownerId,
      revokedAt: null,
      $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }],
    });
  },

  /** Revokes one credential (a dashboard session signed out); false when it was not live. */
  async revoke(em: EntityManager, credential: Pick<Credential, 'id'>, now = new Date()): Promise<boolean> {
    return (await em.nativeUpdate(Credential, { id: credential.id, revokedAt: null }, { revokedAt: now })) === 1;
  },

  /** Revokes the live credentials of a family; only those of `kinds` when given (a refresh revokes the family's access tokens only). */
  async revokeFamily(em: EntityManager, family: string, now = new Date(), kinds?: CredentialKind[]): Promise<number> {
    return em.nativeUpdate(
      Credential,
      { family, revokedAt: null, ...(kinds ? { kind: { $in: kinds } } : {}) },
      { revokedAt: now },
    );
  },

  /**
   * Spends a single-use credential: one conditional UPDATE (still unused, unrevoked and
   * unexpired at `now`), so of two requests racing with the same code or refresh token exactly
   * one gets true; the other sees it spent. In the caller's transaction, with what it issues.
   */
  async consume(em: EntityManager, credential: Pick<Credential, 'id'>, now = new Date()): Promise<boolean> {
    const count = await em.nativeUpdate(
      Credential,
      { id: credential.id, usedAt: null, revokedAt: null, expiresAt: { $gt: now } },
      { usedAt: now },
    );
    return count === 1;
  },

  /**
   * The stored record of a raw secret in whatever state (the router's rate-limit key for a
   * presented code or refresh token); null when the vault never issued it. Not a verification.
   */
  async lookup(em: EntityManager, kinds: CredentialKind[], raw: string): Promise<Credential | null> {
    const credential = await em.findOne(Credential, { hash: sha256Hex(raw) }, { disableIdentityMap: true });
    return credential && kinds.includes(credential.kind) ? credential : null;
  },

  async verify(
    em: EntityManager,
    kinds: CredentialKind | CredentialKind[],
    raw: string,
    now = new Date(),
  ): Promise<VerifyResult> {
    const hash = sha256Hex(raw);
    const credential = await findByHash(em, hash);
    const wanted = Array.isArray(kinds) ? kinds : [kinds];
    // The hash lookup already matched; the constant-time re-check keeps the comparison itself
    // from depending on where the strings differ.
    if (!credential || !wanted.includes(credential.kind) || !safeEqual(credential.hash, hash)) {
      return { ok: false, reason: 'unknown' };
    }
    // Spent before revoked: a replayed code or refresh token must be recognised as a replay even
    // after the revocation it caused.
    if (credential.usedAt) return { ok: false, reason: 'used', credential };
    if (credential.revokedAt) return { ok: false, reason: 'revoked', credential };
    if (credential.expiresAt && credential.expiresAt.getTime() <= now.getTime()) {
      return { ok: false, reason: 'expired', credential };
    }
    // Last: `suspended` means "valid once the participant is resumed".
    if (credential.participantSuspended && !SUSPENSION_EXEMPT.has(credential.kind)) {
      return { ok: false, reason: 'suspended', credential };
    }
    return { ok: true, credential };
  },

  /**
   * Suspends a participant (a bank by handle, a merchant or a TPP by id), in the owner's
   * transaction with its status change: from the commit on, every credential it owns, and every
   * Open Banking code and token issued to it as client, verifies as `suspended` (internal keys
   * excepted). Nothing is revoked, so vault.resume restores them as they were. True when it was
   * not suspended yet.
   */
  suspend(em: EntityManager, ownerId: string, now = new Date()): Promise<boolean> {
    return markSuspended(em, ownerId, now);
  },

  /** Lifts a suspension, in the owner's transaction; true when the participant was suspended. */
  resume(em: EntityManager, ownerId: string): Promise<boolean> {
    return clearSuspended(em, ownerId);
  },
};

/** A new credential's row and its raw secret, not yet written. */
function newCredential(options: IssueOptions): { raw: string; row: Credential } {
  const raw = options.raw ?? newSecret(options.prefix);
  const row: Credential = {
    id: newId('credential'),
    kind: options.kind,
    hash: sha256Hex(raw),
    ownerId: options.ownerId,
    scopes: options.scopes ?? [],
    family: options.family ?? null,
    clientId: options.clientId ?? null,
    expiresAt: options.expiresAt ?? null,
    revokedAt: null,
    usedAt: null,
    label: options.label ?? null,
    createdBy: options.createdBy ?? null,
    keyThumbprint: options.keyThumbprint ?? null,
    createdAt: new Date(),
  };
  return { raw, row };
}
