import { GatewayError, parseInput, webhookUrlRule, z, type WebhookUrlSettings } from '@gateway/kernel';
import { publicJwksRule } from '../signing-keys/jwks';
import { redirectUriRule } from '../tpp/tpp.rules';

/** RFC 7591 2: the one token endpoint authentication method a registered (fapi2) client may use. */
export const PRIVATE_KEY_JWT = 'private_key_jwt';

/** The client metadata of a registration or of its replacement (RFC 7591 2, RFC 7592 2.2). */
function metadataShape(targets: WebhookUrlSettings) {
  return {
    jwks: publicJwksRule,
    redirectUris: z
      .array(redirectUriRule(targets.production))
      .min(1, 'must list at least one URI')
      .max(10, 'must list at most 10 URIs')
      .refine((uris) => new Set(uris).size === uris.length, 'must not repeat a URI'),
    tokenEndpointAuthMethod: z.literal(PRIVATE_KEY_JWT, {
      error: `must be ${PRIVATE_KEY_JWT}: registered clients authenticate with a signed assertion (FAPI 2.0)`,
    }),
    webhookUrl: webhookUrlRule(targets)
      .nullish()
      .transform((url) => url ?? null),
  };
}

/** POST /ob/register: the statement, the metadata, and the TPP's world (test by default, fixed). */
export function registrationRules(targets: WebhookUrlSettings) {
  return z
    .object({
      softwareStatement: z.string().min(1, 'required').max(16_384, 'must be at most 16384 characters'),
      ...metadataShape(targets),
      mode: z
        .enum(['test', 'live'], { error: 'must be test or live' })
        .nullish()
        .transform((mode) => mode ?? 'test'),
    })
    .strict();
}

/** PUT /ob/register/{client_id}: the whole metadata again (RFC 7592 2.2: an omitted field is removed). */
export function registrationUpdateRules(targets: WebhookUrlSettings) {
  return z
    .object({
      clientId: z.string().nullish(),
      ...metadataShape(targets),
    })
    .strict();
}

/**
 * parseInput with RFC 7591 3.2.2's codes instead of VALIDATION_ERROR: a redirect URI is
 * INVALID_REDIRECT_URI, the statement INVALID_SOFTWARE_STATEMENT, any other field
 * INVALID_CLIENT_METADATA; the detail names the field either way.
 */
export function parseMetadata<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  try {
    return parseInput(schema, input);
  } catch (error) {
    if (!(error instanceof GatewayError) || error.code !== 'VALIDATION_ERROR') throw error;
    const code = error.detail.startsWith('redirect_uris')
      ? 'INVALID_REDIRECT_URI'
      : error.detail.startsWith('software_statement')
        ? 'INVALID_SOFTWARE_STATEMENT'
        : 'INVALID_CLIENT_METADATA';
    throw new GatewayError(code, error.detail);
  }
}
