import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode } from '@mikro-orm/core';
import { GatewayError, invalid, newId, newSecret, parseInput, sealSecret } from '@gateway/kernel';
import { vault } from '@gateway/vault';
import {
  audit,
  type AuditChange,
  type AuditedBy,
  changesBetween,
  createdWith,
  reasonGiven,
  SECRET_ISSUED,
  SECRET_REPLACED,
} from '@gateway/audit';
import { tppAuditFields } from './tpp.audit';
import { assertKeysImport, type PublicJwks } from '../signing-keys/jwks';
import { TppEntity, type SecurityProfile, type TppStatus } from './tpp.entity';
import type { RegisterTppInput, UpdateTppInput } from './tpp.input';
import { registerTppRules, updateTppRules } from './tpp.rules';
import type { OpenBankingSettings } from '../settings';

/** What TPP registration needs of the subgraph's settings. */
export type TppSettings = Pick<OpenBankingSettings, 'platformSecret' | 'production' | 'webhookPrivateTargets'>;

export interface RegisteredTpp {
  tpp: TppEntity;
  /** The tpk_ token of a spec TPP; null for a fapi2 TPP, which authenticates with its keys. */
  tppAccessToken: string | null;
  webhookSecret: string;
}

/** A TPP to write, validated: by an operator (POST /ob/tpps) or by its own client (RFC 7591). */
export interface NewTpp {
  name: string;
  mode: 'test' | 'live';
  redirectUris: string[];
  webhookUrl: string | null;
  securityProfile: SecurityProfile;
  jwks: PublicJwks | null;
  softwareId?: string | null;
}

/** One wording for an unknown id and for another TPP's id, so the two cannot be told apart. */
export const tppNotFound = (id: string): GatewayError => new GatewayError('TPP_NOT_FOUND', `no TPP with id ${id}`);

export class TppService {
  constructor(private readonly settings: TppSettings) {}

  /** The URL rules of this deployment (production: https, webhooks to public hosts only). */
  webhookTargets() {
    return { production: this.settings.production, privateTargets: this.settings.webhookPrivateTargets ?? false };
  }

  async find(em: EntityManager, id: string): Promise<TppEntity> {
    const tpp = await em.findOne(TppEntity, { id });
    if (!tpp) throw tppNotFound(id);
    return tpp;
  }

  async register(em: EntityManager, input: RegisterTppInput, by: AuditedBy): Promise<RegisteredTpp> {
    const valid = parseInput(registerTppRules(this.webhookTargets()), input);
    if (valid.jwks) await assertKeysImport(valid.jwks, 'jwks', 'VALIDATION_ERROR');
    return em.transactional(async (tx) => this.create(tx, valid, by));
  }

  /**
   * Writes a validated TPP, its webhook secret and, for a spec TPP, its tpk_ token, with the audit
   * entry, in the caller's transaction. A fapi2 TPP gets no bearer token: it proves who it is with
   * its keys (private_key_jwt), and a tpk_ it never had cannot leak.
   */
  create(tx: EntityManager, fields: NewTpp, by: AuditedBy, issued: Record<string, AuditChange> = {}): RegisteredTpp {
    const webhookSecret = newSecret('whsec_');
    const tpp = tx.create(TppEntity, {
      id: newId('tpp'),
      name: fields.name,
      mode: fields.mode,
      redirectUris: fields.redirectUris,
      webhookUrl: fields.webhookUrl,
      webhookSecretSealed: sealSecret(webhookSecret, this.settings.platformSecret),
      status: 'ACTIVE',
      securityProfile: fields.securityProfile,
      jwks: fields.jwks,
      softwareId: fields.softwareId ?? null,
      createdAt: new Date(),
    });
    const tppAccessToken =
      fields.securityProfile === 'spec'
        ? vault.issue(tx, { kind: 'tpp_key', ownerId: tpp.id, prefix: 'tpk_' }).raw
        : null;
    const changes = {
      ...createdWith(tppAuditFields(tpp)),
      ...(tppAccessToken ? { tpp_access_token: SECRET_ISSUED } : {}),
      webhook_secret: SECRET_ISSUED,
      ...issued,
    };
    audit.record(tx, { actor: by.actor, action: 'tpp.registered', target: tpp.id, changes }, by.logger);
    return { tpp, tppAccessToken, webhookSecret };
  }

  async update(em: EntityManager, id: string, input: UpdateTppInput, by: AuditedBy): Promise<TppEntity> {
    const changes = parseInput(updateTppRules(this.webhookTargets()), stripUndefined(input));
    return em.transactional(async (tx) => {
      const tpp = await this.find(tx, id);
      const before = tppAuditFields(tpp);
      if (changes.name !== undefined) tpp.name = changes.name;
      if (changes.webhookUrl !== undefined) tpp.webhookUrl = changes.webhookUrl;
      const changed = changesBetween(before, tppAuditFields(tpp));
      audit.record(tx, { actor: by.actor, action: 'tpp.updated', target: id, changes: changed }, by.logger);
      return tpp;
    });
  }

  /**
   * Replaces the sealed secret: the dispatcher reads it on every attempt (never cached), so from
   * the commit on deliveries are signed with the new one only.
   */
  async rotateWebhookSecret(em: EntityManager, id: string, by: AuditedBy): Promise<string> {
    const webhookSecret = newSecret('whsec_');
    await em.transactional(async (tx) => {
      const tpp = await this.find(tx, id);
      tpp.webhookSecretSealed = sealSecret(webhookSecret, this.settings.platformSecret);
      const changes = { webhook_secret: SECRET_REPLACED };
      audit.record(tx, { actor: by.actor, action: 'tpp.webhook_secret_rotated', target: id, changes }, by.logger);
    });
    return webhookSecret;
  }

  /**
   * Suspends (SUSPENDED) or resumes (ACTIVE) a TPP, operator only. In one transaction: the
   * status, the vault's mark (its tpk_ token and every code and token issued to it answer
   * TPP_SUSPENDED at once, and work again on resume) and the audit entry. A TPP already in that
   * status is answered as it is, with no entry; the row lock orders concurrent calls.
   */
  async setStatus(
    em: EntityManager,
    id: string,
    status: Exclude<TppStatus, 'DISABLED'>,
    by: AuditedBy,
    reason?: string | null,
  ): Promise<TppEntity> {
    const why = reasonGiven(reason);
    return em.transactional(async (tx) => {
      const tpp = await tx.findOne(TppEntity, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!tpp) throw tppNotFound(id);
      if (tpp.status === 'DISABLED')
        throw invalid('id', `TPP ${id} was deleted by its client (RFC 7592) and cannot be suspended or resumed`);
      if (tpp.status === status) return tpp;
      const before = tpp.status;
      tpp.status = status;
      if (status === 'SUSPENDED') await vault.suspend(tx, id);
      else await vault.resume(tx, id);
      audit.record(
        tx,
        {
          actor: by.actor,
          action: status === 'SUSPENDED' ? 'tpp.suspended' : 'tpp.resumed',
          target: id,
          changes: { status: { from: before, to: status }, ...why },
        },
        by.logger,
      );
      return tpp;
    });
  }

  /** The dispatcher's view: URL and sealed secret, read fresh (rotation and URL changes apply at once); null for an unknown TPP. */
  async webhookTarget(
    em: EntityManager,
    id: string,
  ): Promise<{ url: string | null; sealedSecret: string; livemode: boolean; createdAt: Date } | null> {
    const tpp = await em.findOne(TppEntity, { id });
    return tpp
      ? {
          url: tpp.webhookUrl,
          sealedSecret: tpp.webhookSecretSealed,
          livemode: tpp.mode === 'live',
          createdAt: tpp.createdAt,
        }
      : null;
  }
}

/** type-graphql leaves omitted input fields undefined; only given ones (including explicit nulls) are changes. */
function stripUndefined<T extends object>(input: T): Partial<T> {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)) as Partial<T>;
}
