import { Field, InputType, Int } from 'type-graphql';

@InputType({ description: 'A consent request (POST /ob/consents), made by the TPP with its access token (tpk_…).' })
export class CreateConsentInput {
  @Field({ description: "Handle of the customer's bank; it must take part in Open Banking (ob_enabled)." })
  bankHandle!: string;

  @Field(() => [String], {
    description:
      "Requested access: a non-empty subset of accounts:read, balances:read, transactions:read, payments:write, and of the bank's ob_scopes_supported.",
  })
  scopes!: string[];

  @Field({
    description:
      "Where the customer returns with code, consent_id and state: exactly (character for character) one of the TPP's registered redirect URIs.",
  })
  redirectUri!: string;

  @Field({ description: 'Anti-CSRF value, 1-512 characters, echoed back unchanged to redirect_uri.' })
  state!: string;

  @Field({ description: 'PKCE challenge: BASE64URL(SHA-256(code_verifier)), 43 characters (RFC 7636).' })
  codeChallenge!: string;

  @Field({ description: 'Must be S256; anything else (plain) is refused with PKCE_METHOD_REJECTED.' })
  codeChallengeMethod!: string;

  @Field(() => Int, { description: "Days the consent lasts once created: 1 up to the bank's max_consent_expiry_days." })
  expiryDays!: number;
}
