import type { EntityManager } from '@mikro-orm/postgresql';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { GatewayError, newSecret, openSealedSecret, parseInput, sealSecret } from '@gateway/kernel';
import { Credential, vault } from '@gateway/vault';
import {
  audit,
  type AuditedBy,
  changesBetween,
  createdWith,
  reasonGiven,
  SECRET_ISSUED,
  SECRET_REPLACED,
} from '@gateway/audit';
import { bankAuditFields, sandboxKeyChange } from './bank.audit';
import { lockBank } from './bank-lock';
import { recordBankStatusChanged } from './bank-status.events';
import { BankEntity, type BankStatus } from './bank.entity';
import { sameCore } from './core-url';
import { registerBankRules, updateCapabilitiesRules } from './bank.rules';
import type { RegisterBankInput, UpdateBankCapabilitiesInput } from './bank.input';

export interface BanksSettings {
  platformSecret: string;
  production: boolean;
  /**
   * PRIVATE_TARGETS: a core_base_url or sandbox_core_base_url may name a loopback, private or
   * link-local host (sandbox banks on this machine). Default false: public addresses only.
   */
  privateTargets?: boolean;
  /** INTERNAL_KEY_GRACE_SECONDS (default 86400): a rotated internal key is still accepted on callbacks this long. */
  internalKeyGraceSeconds?: number;
}

export interface RegisteredBank {
  bank: BankEntity;
  bankKey: string;
  internalKey: string;
  /** The sandbox core's internal key, when one was registered (shown once, like the others). */
  sandboxInternalKey: string | null;
}

/** Bank keys carry the bank's institution code as a grant, so the identity registry can check claimed IBANs without a call. */
const bankKeyOptions = (bank: BankEntity) => ({
  kind: 'bank_key' as const,
  ownerId: bank.handle,
  prefix: `sbk_${bank.handle}_`,
  scopes: [`institution:${bank.institutionCode}`],
});

export class BankService {
  constructor(private readonly settings: BanksSettings) {}

  /** What core URLs are checked against at registration and at every change. */
  private get coreUrls() {
    return { production: this.settings.production, privateTargets: this.settings.privateTargets ?? false };
  }

  async find(em: EntityManager, handle: string): Promise<BankEntity> {
    const bank = await em.findOne(BankEntity, { handle });
    if (!bank) throw new GatewayError('BANK_NOT_REGISTERED', `no bank with handle ${handle}`);
    return bank;
  }

  async findByInstitutionCode(em: EntityManager, institutionCode: string): Promise<BankEntity | null> {
    return em.findOne(BankEntity, { institutionCode });
  }

  /**
   * A participating bank for the payment engine, by handle or institution code (exactly one),
   * with its internal key unsealed. BANK_NOT_REGISTERED when unknown, BANK_NOT_PARTICIPATING
   * when it is not ACTIVE, unless `includeSuspended` (work already in flight: engine steps and
   * settlement finish at a bank suspended meanwhile).
   */
  async routing(
    em: EntityManager,
    args: { handle?: string | null; institutionCode?: string | null; includeSuspended?: boolean | null },
  ): Promise<{ bank: BankEntity; internalKey: string; sandboxInternalKey: string | null }> {
    const given = [args.handle, args.institutionCode].filter((value) => value !== undefined && value !== null);
    if (given.length !== 1)
      throw new GatewayError('VALIDATION_ERROR', 'handle: give exactly one of handle or institution_code');
    const bank =
      args.handle != null
        ? await em.findOne(BankEntity, { handle: args.handle })
        : await this.findByInstitutionCode(em, args.institutionCode!);
    if (!bank)
      throw new GatewayError(
        'BANK_NOT_REGISTERED',
        `no bank with ${args.handle != null ? `handle ${args.handle}` : `institution code ${args.institutionCode}`}`,
      );
    if (bank.status !== 'ACTIVE' && !args.includeSuspended)
      throw new GatewayError('BANK_NOT_PARTICIPATING', `bank ${bank.handle} is ${bank.status}`);
    return this.keysOf(bank);
  }

  /** A bank's routing keys, unsealed; null when it takes no part in payments (not ACTIVE). */
  participating(bank: BankEntity): { bank: BankEntity; internalKey: string; sandboxInternalKey: string | null } | null {
    return bank.status === 'ACTIVE' ? this.keysOf(bank) : null;
  }

  private keysOf(bank: BankEntity) {
    const sandboxInternalKey = bank.sandboxInternalKeySealed
      ? openSealedSecret(bank.sandboxInternalKeySealed, this.settings.platformSecret)
      : null;
    return {
      bank,
      internalKey: openSealedSecret(bank.internalKeySealed, this.settings.platformSecret),
      sandboxInternalKey,
    };
  }

  async register(em: EntityManager, input: RegisterBankInput, by: AuditedBy): Promise<RegisteredBank> {
    const valid = parseInput(registerBankRules(this.coreUrls), input);
    const internalKey = valid.internalKey ?? newSecret('sik_');
    const sandboxInternalKey = valid.sandboxCoreBaseUrl ? (valid.sandboxInternalKey ?? newSecret('sik_test_')) : null;
    try {
      return await em.transactional(async (tx) => {
        const clash = await tx.findOne(BankEntity, {
          $or: [{ handle: valid.bankHandle }, { institutionCode: valid.institutionCode }],
        });
        if (clash) {
          throw new GatewayError(
            'BANK_ALREADY_REGISTERED',
            clash.handle === valid.bankHandle
              ? `bank_handle ${valid.bankHandle} is registered`
              : `institution_code ${valid.institutionCode} belongs to ${clash.handle}`,
          );
        }
        const bank = tx.create(BankEntity, {
          handle: valid.bankHandle,
          displayName: valid.displayName,
          country: valid.country,
          institutionCode: valid.institutionCode,
          coreBaseUrl: valid.coreBaseUrl,
          settlementAccountIban: valid.settlementAccountIban.iban,
          settlementAccounts: valid.settlementAccounts.map((account) => ({
            currency: account.currency,
            iban: account.iban.iban,
          })),
          contactEmail: valid.contactEmail,
          internalKeySealed: sealSecret(internalKey, this.settings.platformSecret),
          sandboxCoreBaseUrl: valid.sandboxCoreBaseUrl ?? null,
          sandboxInternalKeySealed: sandboxInternalKey
            ? sealSecret(sandboxInternalKey, this.settings.platformSecret)
            : null,
          status: 'ACTIVE',
          minAmount: BigInt(valid.minAmount),
          maxAmount: BigInt(valid.maxAmount),
          obEnabled: valid.obEnabled,
          obScopesSupported: valid.obScopesSupported,
          scaExemptionLimit: BigInt(valid.scaExemptionLimit),
          scaExemptionMaxCount: valid.scaExemptionMaxCount,
          scaExemptionCumulativeLimit: BigInt(valid.scaExemptionCumulativeLimit),
          maxConsentExpiryDays: valid.maxConsentExpiryDays,
          createdAt: new Date(),
          updatedAt: new Date(),
        });
        const bankKey = vault.issue(tx, bankKeyOptions(bank)).raw;
        // Hashed in the vault to verify the bank's callbacks; sealed above to present it to the core.
        vault.issue(tx, { kind: 'internal_key', ownerId: bank.handle, prefix: '', raw: internalKey });
        // The sandbox core's callbacks authenticate as the bank's test world: they confirm test movements only.
        if (sandboxInternalKey)
          vault.issue(tx, {
            kind: 'internal_key',
            ownerId: bank.handle,
            prefix: '',
            raw: sandboxInternalKey,
            scopes: ['test'],
          });
        const changes = {
          ...createdWith(bankAuditFields(bank)),
          bank_key: SECRET_ISSUED,
          internal_key: SECRET_ISSUED,
          ...(sandboxInternalKey ? { sandbox_internal_key: SECRET_ISSUED } : {}),
        };
        audit.record(tx, { actor: by.actor, action: 'bank.registered', target: bank.handle, changes }, by.logger);
        return { bank, bankKey, internalKey, sandboxInternalKey };
      });
    } catch (error) {
      // Two concurrent registrations of one handle: the loser sees the unique index.
      if (error instanceof UniqueConstraintViolationException) {
        // The vault keys credentials by hash: a supplied internal key another bank already uses.
        if ((error as { constraint?: string }).constraint === 'credentials_hash_unique') {
          throw new GatewayError('VALIDATION_ERROR', 'internal_key: already in use; every bank needs a key of its own');
        }
        throw new GatewayError(
          'BANK_ALREADY_REGISTERED',
          `bank_handle ${valid.bankHandle} or institution_code ${valid.institutionCode} is registered`,
        );
      }
      throw error;
    }
  }

  async updateCapabilities(
    em: EntityManager,
    handle: string,
    input: UpdateBankCapabilitiesInput,
    by: AuditedBy,
  ): Promise<BankEntity> {
    const changes = parseInput(updateCapabilitiesRules(this.coreUrls), stripUndefined(input));
    // A new sandbox core passed the egress check above; the audit entry of the change is also
    // logged at warn (@gateway/audit: sandbox_core_base_url is a field of where money goes).
    return em.transactional(async (tx) => {
      const bank = await this.find(tx, handle);
      const before = { fields: bankAuditFields(bank), sandboxKey: bank.sandboxInternalKeySealed };
      if (changes.sandboxCoreBaseUrl !== undefined)
        await this.changeSandboxCore(tx, bank, changes.sandboxCoreBaseUrl, changes.sandboxInternalKey);
      if (changes.obEnabled !== undefined) bank.obEnabled = changes.obEnabled;
      if (changes.obScopesSupported !== undefined) bank.obScopesSupported = changes.obScopesSupported;
      if (changes.scaExemptionLimit !== undefined) bank.scaExemptionLimit = BigInt(changes.scaExemptionLimit);
      if (changes.scaExemptionMaxCount !== undefined) bank.scaExemptionMaxCount = changes.scaExemptionMaxCount;
      if (changes.scaExemptionCumulativeLimit !== undefined)
        bank.scaExemptionCumulativeLimit = BigInt(changes.scaExemptionCumulativeLimit);
      if (changes.maxConsentExpiryDays !== undefined) bank.maxConsentExpiryDays = changes.maxConsentExpiryDays;
      const changed = changesBetween(before.fields, bankAuditFields(bank));
      const sandboxKey = sandboxKeyChange(before.sandboxKey, bank.sandboxInternalKeySealed);
      if (sandboxKey) changed.sandbox_internal_key = sandboxKey;
      audit.record(tx, { actor: by.actor, action: 'bank.updated', target: handle, changes: changed }, by.logger);
      return bank;
    });
  }

  /**
   * Points the bank's test world at another sandbox core (or, null, back at the built-in test
   * bank): the previous sandbox key stops working at once; never the live URL or key. The URL
   * passed the egress check (updateCapabilitiesRules).
   */
  private async changeSandboxCore(
    tx: EntityManager,
    bank: BankEntity,
    url: string | null,
    key: string | undefined,
  ): Promise<void> {
    const liveKey = openSealedSecret(bank.internalKeySealed, this.settings.platformSecret);
    if (url !== null && sameCore(url, bank.coreBaseUrl)) {
      throw new GatewayError('VALIDATION_ERROR', 'sandbox_core_base_url: must not be the live core_base_url');
    }
    if (key !== undefined && key === liveKey)
      throw new GatewayError('VALIDATION_ERROR', 'sandbox_internal_key: must not be the live internal_key');
    const previousKey = bank.sandboxInternalKeySealed
      ? openSealedSecret(bank.sandboxInternalKeySealed, this.settings.platformSecret)
      : null;
    bank.sandboxCoreBaseUrl = url;
    // The same key for a moved core stays as it is; any other change retires the previous key.
    if (url !== null && key === previousKey) return;
    if (previousKey !== null) {
      // The vault's lookup answers a row it does not track: the revocation is an update of its own.
      const previous = await vault.lookup(tx, ['internal_key'], previousKey);
      if (previous) await tx.nativeUpdate(Credential, { id: previous.id, revokedAt: null }, { revokedAt: new Date() });
    }
    bank.sandboxInternalKeySealed =
      url !== null && key !== undefined ? sealSecret(key, this.settings.platformSecret) : null;
    if (url !== null && key !== undefined)
      vault.issue(tx, { kind: 'internal_key', ownerId: bank.handle, prefix: '', raw: key, scopes: ['test'] });
  }

  /**
   * The bank's own rotation, or the operator's after a revocation (the bank gets its new key from
   * the operator). The bank row is locked: two rotations racing leave exactly one valid key.
   */
  async rotateKey(em: EntityManager, handle: string, by: AuditedBy): Promise<string> {
    return em.transactional(async (tx) => {
      const bank = await lockBank(tx, handle);
      const bankKey = (await vault.rotate(tx, bankKeyOptions(bank))).raw;
      const changes = { bank_key: SECRET_REPLACED };
      audit.record(tx, { actor: by.actor, action: 'bank.key_rotated', target: bank.handle, changes }, by.logger);
      return bankKey;
    });
  }

  /**
   * Suspends (SUSPENDED) or resumes (ACTIVE) a bank, operator only. In one transaction: the
   * status (bank routing refuses new work, BANK_NOT_PARTICIPATING), the vault's mark (its bank
   * key answers BANK_SUSPENDED; its internal key keeps working for the callbacks of movements in
   * flight), the event that drops the other services' cached routing of the bank, and the audit
   * entry. A bank already in that status is answered as it is, with nothing written; the row
   * lock orders concurrent calls (and orders them with key rotations).
   */
  async setStatus(
    em: EntityManager,
    handle: string,
    status: BankStatus,
    by: AuditedBy,
    reason?: string | null,
  ): Promise<BankEntity> {
    const why = reasonGiven(reason);
    return em.transactional(async (tx) => {
      const bank = await lockBank(tx, handle);
      if (bank.status === status) return bank;
      const before = bank.status;
      bank.status = status;
      if (status === 'SUSPENDED') await vault.suspend(tx, handle);
      else await vault.resume(tx, handle);
      recordBankStatusChanged(tx, bank, new Date());
      audit.record(
        tx,
        {
          actor: by.actor,
          action: status === 'SUSPENDED' ? 'bank.suspended' : 'bank.resumed',
          target: handle,
          changes: { status: { from: before, to: status }, ...why },
        },
        by.logger,
      );
      return bank;
    });
  }
}

function stripUndefined<T extends object>(input: T): Partial<T> {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)) as Partial<T>;
}
