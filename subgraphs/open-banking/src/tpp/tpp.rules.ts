import { rules, webhookUrlRule, z, type WebhookUrlSettings } from '@gateway/kernel';

/**
 * A redirect URI is later compared by exact string match (RFC 6749 3.1.2.3), so it is stored as
 * given: nothing trimmed or normalised, and anything that would make the stored form differ
 * from what a client sends is refused instead. RFC 6749 3.1.2 forbids a fragment.
 */
function redirectUriRule(production: boolean) {
  return (
    z
      .string()
      // Checked before the URL rule, which silently trims its value.
      .refine((uri) => uri === uri.trim(), 'must not have leading or trailing whitespace')
      .pipe(rules.url(production))
      .refine((uri) => !uri.includes('#'), 'must not contain a fragment')
  );
}

export function registerTppRules(targets: WebhookUrlSettings) {
  return z
    .object({
      name: rules.text(100),
      // Omitted (undefined) or null: test, as for merchants; the world never changes afterwards.
      mode: z
        .enum(['test', 'live'], { error: 'must be test or live' })
        .nullish()
        .transform((mode) => mode ?? 'test'),
      redirectUris: z
        .array(redirectUriRule(targets.production))
        .min(1, 'must list at least one URI')
        .max(10, 'must list at most 10 URIs')
        .refine((uris) => new Set(uris).size === uris.length, 'must not repeat a URI'),
      // GraphQL hands an omitted optional field over as undefined and an explicit one as null: both mean "none".
      webhookUrl: webhookUrlRule(targets)
        .nullish()
        .transform((url) => url ?? null),
    })
    .strict();
}

/** A change to a TPP: omitted fields stay; webhookUrl null removes it (as for merchants). */
export function updateTppRules(targets: WebhookUrlSettings) {
  return z
    .object({
      name: rules.text(100).optional(),
      webhookUrl: webhookUrlRule(targets).nullable().optional(),
    })
    .strict();
}
