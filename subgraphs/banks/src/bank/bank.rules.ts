import { rules, z } from '@gateway/kernel';
import { coreUrlRule, sameCore, type CoreUrlSettings } from './core-url';

export const OB_SCOPES = ['accounts:read', 'balances:read', 'transactions:read', 'payments:write'] as const;

/**
 * PSD2 RTS art. 16 for remote payments: SCA again after five exempted payments, or once their
 * cumulative amount would pass EUR 100, since the last SCA. The amount is the RTS figure in
 * LYD's minor units (3 decimals: 100.000 LYD), the currency of the banks' country (LY).
 */
export const DEFAULT_SCA_EXEMPTION_MAX_COUNT = 5;
export const DEFAULT_SCA_EXEMPTION_CUMULATIVE_LIMIT = 100_000;

/** Bank handles appear inside bank keys (sbk_<handle>_<random>), so no underscore. */
export const BANK_HANDLE = /^[a-z][a-z0-9-]{1,31}$/;

const capabilities = {
  obEnabled: z.boolean(),
  obScopesSupported: z
    .array(z.enum(OB_SCOPES, { error: `must be among ${OB_SCOPES.join(', ')}` }))
    .refine((scopes) => new Set(scopes).size === scopes.length, 'must not repeat a scope'),
  scaExemptionLimit: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  scaExemptionMaxCount: z.number().int().min(0).max(1000),
  scaExemptionCumulativeLimit: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  maxConsentExpiryDays: z.number().int().min(1).max(365),
};

export function updateCapabilitiesRules(settings: CoreUrlSettings) {
  return (
    z
      .object({
        obEnabled: capabilities.obEnabled.optional(),
        obScopesSupported: capabilities.obScopesSupported.optional(),
        scaExemptionLimit: capabilities.scaExemptionLimit.optional(),
        scaExemptionMaxCount: capabilities.scaExemptionMaxCount.optional(),
        scaExemptionCumulativeLimit: capabilities.scaExemptionCumulativeLimit.optional(),
        maxConsentExpiryDays: capabilities.maxConsentExpiryDays.optional(),
        // null: no sandbox core any more (the built-in test bank answers for the bank again).
        sandboxCoreBaseUrl: coreUrlRule(settings).nullable().optional(),
        sandboxInternalKey: z.string().min(24, 'must be at least 24 characters').max(256).optional(),
      })
      .strict()
      // The bank chooses the key of its own sandbox core here (nothing to show once in this answer).
      .refine((changes) => typeof changes.sandboxCoreBaseUrl !== 'string' || changes.sandboxInternalKey !== undefined, {
        path: ['sandboxInternalKey'],
        message: 'required with sandbox_core_base_url',
      })
      .refine((changes) => changes.sandboxInternalKey === undefined || typeof changes.sandboxCoreBaseUrl === 'string', {
        path: ['sandboxInternalKey'],
        message: 'needs sandbox_core_base_url',
      })
  );
}

export function registerBankRules(settings: CoreUrlSettings) {
  return (
    z
      .object({
        bankHandle: z.string().regex(BANK_HANDLE, '2-32 lowercase letters, digits or -, starting with a letter'),
        displayName: rules.text(100),
        country: z.literal('LY', { error: 'must be LY' }),
        coreBaseUrl: coreUrlRule(settings),
        settlementAccountIban: rules.iban,
        settlementAccounts: z
          .array(z.object({ currency: rules.currency, iban: rules.iban }).strict())
          .max(3)
          .refine(
            (accounts) => new Set(accounts.map((account) => account.currency)).size === accounts.length,
            'must not repeat a currency',
          )
          .default([]),
        contactEmail: rules.email,
        institutionCode: z.string().regex(/^\d{3}$/, 'must be three digits'),
        internalKey: z.string().min(24, 'must be at least 24 characters').max(256).optional(),
        // GraphQL hands an omitted optional field over as undefined and an explicit one as null: both mean "none".
        sandboxCoreBaseUrl: coreUrlRule(settings).nullish(),
        sandboxInternalKey: z.string().min(24, 'must be at least 24 characters').max(256).nullish(),
        minAmount: rules.amount.default(1),
        maxAmount: rules.amount.default(1_000_000_000),
        obEnabled: capabilities.obEnabled.default(false),
        obScopesSupported: capabilities.obScopesSupported.default([]),
        scaExemptionLimit: capabilities.scaExemptionLimit.default(100_000),
        scaExemptionMaxCount: capabilities.scaExemptionMaxCount.default(DEFAULT_SCA_EXEMPTION_MAX_COUNT),
        scaExemptionCumulativeLimit: capabilities.scaExemptionCumulativeLimit.default(
          DEFAULT_SCA_EXEMPTION_CUMULATIVE_LIMIT,
        ),
        maxConsentExpiryDays: capabilities.maxConsentExpiryDays.default(90),
      })
      .strict()
      .refine((bank) => bank.maxAmount >= bank.minAmount, {
        path: ['maxAmount'],
        message: 'must not be below min_amount',
      })
      // Test money must never reach the live core: the two are never the same address, nor the same key.
      .refine((bank) => !bank.sandboxCoreBaseUrl || !sameCore(bank.sandboxCoreBaseUrl, bank.coreBaseUrl), {
        path: ['sandboxCoreBaseUrl'],
        message: 'must not be the live core_base_url',
      })
      .refine((bank) => bank.sandboxInternalKey == null || bank.sandboxCoreBaseUrl != null, {
        path: ['sandboxInternalKey'],
        message: 'needs sandbox_core_base_url',
      })
      .refine((bank) => bank.sandboxInternalKey == null || bank.sandboxInternalKey !== bank.internalKey, {
        path: ['sandboxInternalKey'],
        message: 'must not be the live internal_key',
      })
      .refine((bank) => bank.settlementAccountIban.institutionCode === bank.institutionCode, {
        path: ['settlementAccountIban'],
        message: "must be an account at the bank's own institution code",
      })
      .refine(
        (bank) => bank.settlementAccounts.every((account) => account.iban.institutionCode === bank.institutionCode),
        {
          path: ['settlementAccounts'],
          message: "every iban must be an account at the bank's own institution code",
        },
      )
  );
}
