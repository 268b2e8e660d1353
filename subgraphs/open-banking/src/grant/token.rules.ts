import { z } from '@gateway/kernel';
import { CODE_VERIFIER } from './pkce';

const present = (max: number) => z.string().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

/**
 * Client authentication (RFC 7521 4.2), sent by fapi2 TPPs (private_key_jwt) and by no spec TPP;
 * checked by the ClientAuthenticator, so only their size is bounded here.
 */
const clientAuthentication = {
  clientId: present(64).nullish(),
  clientAssertionType: present(128).nullish(),
  clientAssertion: present(8192).nullish(),
  /** The DPoP header (RFC 9449): checked by TokenEndpointProofs. */
  dpopProof: present(8192).nullish(),
};

/** The authorization_code grant's fields (spec "Token endpoint forms": all required). */
export const exchangeCodeRules = z
  .object({
    code: present(256),
    redirectUri: present(2048),
    consentId: present(64),
    codeVerifier: z.string().regex(CODE_VERIFIER, 'must be 43-128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636 4.1)'),
    ...clientAuthentication,
  })
  .strict();

/** The refresh_token grant's fields. */
export const refreshRules = z
  .object({
    refreshToken: present(256),
    consentId: present(64),
    ...clientAuthentication,
  })
  .strict();

/** The client_credentials grant's fields (RFC 6749 4.4.2): scope, space-separated, optional. */
export const clientCredentialsRules = z
  .object({
    scope: z.string().max(256, 'must be at most 256 characters').nullish(),
    ...clientAuthentication,
  })
  .strict();

export type ExchangeCodeRequest = z.infer<typeof exchangeCodeRules>;
export type RefreshRequest = z.infer<typeof refreshRules>;
export type ClientCredentialsRequest = z.infer<typeof clientCredentialsRules>;
