import { rules, webhookUrlRule, z, type WebhookUrlSettings } from '@gateway/kernel';
import { MERCHANT_MODES } from './merchant.entity';

const name = rules.text(100);

export function registerMerchantRules(targets: WebhookUrlSettings) {
  return z
    .object({
      name,
      // GraphQL hands an omitted optional field over as undefined and an explicit one as null: both mean "not given".
      mode: z
        .enum(MERCHANT_MODES, { error: 'must be test or live' })
        .nullish()
        .transform((mode) => mode ?? 'test'),
      webhookUrl: webhookUrlRule(targets)
        .nullish()
        .transform((url) => url ?? null),
      settlementIban: rules.iban.nullish().transform((iban) => iban?.iban ?? null),
    })
    .strict();
}

export function updateMerchantRules(targets: WebhookUrlSettings) {
  return z
    .object({
      name: name.optional(),
      // undefined keeps the URL, null removes it.
      webhookUrl: webhookUrlRule(targets).nullable().optional(),
      // A merchant with mandates is charged into it: it can change, never go away.
      settlementIban: rules.iban.optional().transform((iban) => iban?.iban),
    })
    .strict();
}
