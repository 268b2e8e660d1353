import { z } from '@gateway/kernel';
import { S256_CHALLENGE, STATE_MAX } from '../consent/consent.rules';

const present = (max: number) => z.string().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

/** A JWK SHA-256 thumbprint (RFC 7638): 43 base64url characters. */
const THUMBPRINT = /^[A-Za-z0-9_-]{43}$/;

/** POST /ob/par's parameters (RFC 9126 2.1: the authorization request's, plus client authentication). */
export const pushRules = z
  .object({
    responseType: present(32),
    clientId: present(64),
    redirectUri: present(2048),
    scope: z.string().max(256, 'must be at most 256 characters').nullish(),
    state: present(STATE_MAX),
    codeChallenge: z
      .string()
      .regex(S256_CHALLENGE, 'must be a PKCE S256 challenge: 43 base64url characters (RFC 7636)'),
    codeChallengeMethod: present(16),
    consentId: present(64),
    dpopJkt: z
      .string()
      .regex(THUMBPRINT, 'must be a JWK SHA-256 thumbprint (RFC 7638), 43 base64url characters')
      .nullish(),
    clientAssertionType: present(128).nullish(),
    clientAssertion: present(8192).nullish(),
    dpopProof: present(8192).nullish(),
  })
  .strict();

/** GET {authorization_endpoint}?client_id&request_uri (RFC 9126 4). */
export const redeemRules = z
  .object({
    clientId: present(64),
    requestUri: present(256),
  })
  .strict();

export type PushRequest = z.infer<typeof pushRules>;
