import { rules, webhookUrlRule, z } from '@gateway/kernel';
import { MERCHANT_MODES } from './merchant.entity';

const name = rules.text(100);

export function registerMerchantRules(production: boolean) {
  return z
    .object({
      name,
      // GraphQL hands an omitted optional field over as undefined and an explicit one as null: both mean "not given".
      mode: z
        .enum(MERCHANT_MODES, { error: 'must be test or live' })
        .nullish()
        .transform((mode) => mode ?? 'test'),
      webhookUrl: webhookUrlRule(production)
        .nullish()
        .transform((url) => url ?? null),
      settlementIban: rules.iban.nullish().transform((iban) => iban?.iban ?? null),
    })
    .strict();
}

export function updateMerchantRules(production: boolean) {
  return z
    .object({
      name: name.optional(),
      // undefined keeps the URL, null removes it.
      webhookUrl: webhookUrlRule(production).nullable().optional(),
      // A merchant with mandates is charged into it: it can change, never go away.
      settlementIban: rules.iban.optional().transform((iban) => iban?.iban),
    })
    .strict();
}
