import { rules, webhookUrlRule, z, type WebhookUrlSettings } from '@gateway/kernel';
import { publicJwksRule } from '../signing-keys/jwks';

/**
 * A redirect URI is later compared by exact string match (RFC 6749 3.1.2.3), so it is stored as
 * given: nothing trimmed or normalised, and anything that would make the stored form differ
 * from what a client sends is refused instead. RFC 6749 3.1.2 forbids a fragment.
 */
export function redirectUriRule(production: boolean) {
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
  return (
    z
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
        securityProfile: z
          .enum(['spec', 'fapi2'], { error: 'must be spec or fapi2' })
          .nullish()
          .transform((profile) => profile ?? 'spec'),
        jwks: publicJwksRule.nullish().transform((jwks) => jwks ?? null),
      })
      .strict()
      // A fapi2 client proves who it is with its keys; a spec client has none to prove anything with.
      .superRefine((tpp, ctx) => {
        if (tpp.securityProfile === 'fapi2' && !tpp.jwks)
          ctx.addIssue({ code: 'custom', path: ['jwks'], message: 'required with security_profile fapi2' });
        if (tpp.securityProfile === 'spec' && tpp.jwks)
          ctx.addIssue({ code: 'custom', path: ['jwks'], message: 'only for security_profile fapi2' });
      })
  );
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
