import { z } from '@gateway/kernel';
import { CODE_VERIFIER } from './pkce';

const present = (max: number) => z.string().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

/** The authorization_code grant's fields (spec "Token endpoint forms": all required). */
export const exchangeCodeRules = z
  .object({
    code: present(256),
    redirectUri: present(2048),
    consentId: present(64),
    codeVerifier: z.string().regex(CODE_VERIFIER, 'must be 43-128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636 4.1)'),
    clientId: present(64).nullish(),
  })
  .strict();

/** The refresh_token grant's fields. */
export const refreshRules = z
  .object({
    refreshToken: present(256),
    consentId: present(64),
    clientId: present(64).nullish(),
  })
  .strict();

export type ExchangeCodeRequest = z.infer<typeof exchangeCodeRules>;
export type RefreshRequest = z.infer<typeof refreshRules>;
