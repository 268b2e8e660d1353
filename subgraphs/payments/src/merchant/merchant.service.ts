import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode } from '@mikro-orm/core';
import { GatewayError, newId, newSecret, parseInput, sealSecret } from '@gateway/kernel';
import { vault } from '@gateway/vault';
import {
  audit,
  type AuditedBy,
  changesBetween,
  createdWith,
  reasonGiven,
  SECRET_ISSUED,
  SECRET_REPLACED,
} from '@gateway/audit';
import { merchantAuditFields } from './merchant.audit';
import { MerchantEntity, type MerchantMode, type MerchantStatus } from './merchant.entity';
import { registerMerchantRules, updateMerchantRules } from './merchant.rules';
import type { RegisterMerchantInput, UpdateMerchantInput } from './merchant.input';

export interface PaymentsSettings {
  platformSecret: string;
  production: boolean;
  /** PRIVATE_TARGETS: a webhook_url may name a loopback, private or link-local address. */
  webhookPrivateTargets?: boolean;
}

export interface RegisteredMerchant {
  merchant: MerchantEntity;
  apiKey: string;
  webhookSecret: string;
}

/** The router turns a verified key into a merchant principal whose scopes are the key's: the mode. */
const merchantKeyOptions = (merchant: { id: string; mode: MerchantMode }) => ({
  kind: 'merchant_key' as const,
  ownerId: merchant.id,
  prefix: `mk_${merchant.mode}_`,
  scopes: [merchant.mode],
});

/** One wording for an unknown id and for another merchant's id, so the two cannot be told apart. */
export const merchantNotFound = (id: string): GatewayError =>
  new GatewayError('MERCHANT_NOT_FOUND', `no merchant with id ${id}`);

export class MerchantService {
  constructor(private readonly settings: PaymentsSettings) {}

  private webhookTargets() {
    return { production: this.settings.production, privateTargets: this.settings.webhookPrivateTargets ?? false };
  }

  async find(em: EntityManager, id: string): Promise<MerchantEntity> {
    const merchant = await em.findOne(MerchantEntity, { id });
    if (!merchant) throw merchantNotFound(id);
    return merchant;
  }

  async register(em: EntityManager, input: RegisterMerchantInput, by: AuditedBy): Promise<RegisteredMerchant> {
    const valid = parseInput(registerMerchantRules(this.webhookTargets()), input);
    const webhookSecret = newSecret('whsec_');
    return em.transactional(async (tx) => {
      const now = new Date();
      const merchant = tx.create(MerchantEntity, {
        id: newId('merchant'),
        name: valid.name,
        mode: valid.mode,
        webhookUrl: valid.webhookUrl,
        settlementIban: valid.settlementIban,
        status: 'ACTIVE',
        webhookSecretSealed: this.seal(webhookSecret),
        createdAt: now,
        updatedAt: now,
      });
      const apiKey = vault.issue(tx, merchantKeyOptions(merchant)).raw;
      const changes = {
        ...createdWith(merchantAuditFields(merchant)),
        api_key: SECRET_ISSUED,
        webhook_secret: SECRET_ISSUED,
      };
      audit.record(tx, { actor: by.actor, action: 'merchant.created', target: merchant.id, changes }, by.logger);
      return { merchant, apiKey, webhookSecret };
    });
  }

  async update(em: EntityManager, id: string, input: UpdateMerchantInput, by: AuditedBy): Promise<MerchantEntity> {
    const changes = parseInput(updateMerchantRules(this.webhookTargets()), stripUndefined(input));
    return em.transactional(async (tx) => {
      const merchant = await this.find(tx, id);
      const before = merchantAuditFields(merchant);
      if (changes.name !== undefined) merchant.name = changes.name;
      if (changes.webhookUrl !== undefined) merchant.webhookUrl = changes.webhookUrl;
      if (changes.settlementIban !== undefined) merchant.settlementIban = changes.settlementIban;
      const changed = changesBetween(before, merchantAuditFields(merchant));
      audit.record(tx, { actor: by.actor, action: 'merchant.updated', target: id, changes: changed }, by.logger);
      return merchant;
    });
  }

  /**
   * Revokes every live key of the merchant and issues one new key in the same transaction; the
   * dashboard sessions signed in with a key end with it.
   */
  async rotateKey(em: EntityManager, id: string, by: AuditedBy): Promise<string> {
    return em.transactional(async (tx) => {
      const merchant = await this.find(tx, id);
      await vault.revokeAll(tx, 'dashboard_session', merchant.id);
      const apiKey = (await vault.rotate(tx, merchantKeyOptions(merchant))).raw;
      const changes = { api_key: SECRET_REPLACED };
      audit.record(tx, { actor: by.actor, action: 'merchant.key_rotated', target: id, changes }, by.logger);
      return apiKey;
    });
  }

  /** Replaces the sealed secret: from the commit on, deliveries are signed with the new one only. */
  async rotateWebhookSecret(em: EntityManager, id: string, by: AuditedBy): Promise<string> {
    const webhookSecret = newSecret('whsec_');
    await em.transactional(async (tx) => {
      const merchant = await this.find(tx, id);
      merchant.webhookSecretSealed = this.seal(webhookSecret);
      const changes = { webhook_secret: SECRET_REPLACED };
      audit.record(tx, { actor: by.actor, action: 'merchant.webhook_secret_rotated', target: id, changes }, by.logger);
    });
    return webhookSecret;
  }

  /**
   * Suspends (SUSPENDED) or resumes (ACTIVE) a merchant, operator only. In one transaction: the
   * status (checkout refuses its open sessions, MERCHANT_SUSPENDED), the vault's mark (its keys
   * and dashboard sessions answer MERCHANT_SUSPENDED at once) and the audit entry. A merchant
   * already in that status is answered as it is, with no entry; the row lock orders concurrent calls.
   */
  async setStatus(
    em: EntityManager,
    id: string,
    status: MerchantStatus,
    by: AuditedBy,
    reason?: string | null,
  ): Promise<MerchantEntity> {
    const why = reasonGiven(reason);
    return em.transactional(async (tx) => {
      const merchant = await tx.findOne(MerchantEntity, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!merchant) throw merchantNotFound(id);
      if (merchant.status === status) return merchant;
      const before = merchant.status;
      merchant.status = status;
      if (status === 'SUSPENDED') await vault.suspend(tx, id);
      else await vault.resume(tx, id);
      audit.record(
        tx,
        {
          actor: by.actor,
          action: status === 'SUSPENDED' ? 'merchant.suspended' : 'merchant.resumed',
          target: id,
          changes: { status: { from: before, to: status }, ...why },
        },
        by.logger,
      );
      return merchant;
    });
  }

  private seal(secret: string): string {
    return sealSecret(secret, this.settings.platformSecret);
  }
}

/** type-graphql leaves omitted input fields undefined; only given ones (including explicit nulls) are changes. */
function stripUndefined<T extends object>(input: T): Partial<T> {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)) as Partial<T>;
}
