import { Field, InputType } from 'type-graphql';
import { GraphQLSafeInt } from 'graphql-scalars';

@InputType({ description: 'The one account a funds-confirmation consent is for.' })
export class FundsAccountInput {
  @Field({ description: 'iban or alias.' })
  type!: string;

  @Field({ description: 'The IBAN (format and mod-97 checked) or the alias (handle or handle@bank_handle).' })
  value!: string;
}

@InputType({
  description:
    'A funds-confirmation consent request (POST /ob/funds-confirmation-consents, CBPII): the TPP asks to be told, for one account, whether it holds an amount.',
})
export class CreateFundsConfirmationConsentInput {
  @Field({ description: "Handle of the account's bank; it must take part in Open Banking (ob_enabled)." })
  bankHandle!: string;

  @Field(() => FundsAccountInput, { description: 'The account; the approving customer must hold it.' })
  account!: FundsAccountInput;

  @Field({
    description:
      "When the consent ends: an ISO 8601 date-time in the future, at most the bank's max_consent_expiry_days ahead.",
  })
  expiry!: string;

  @Field({ description: "Where the customer returns: exactly one of the TPP's registered redirect URIs." })
  redirectUri!: string;

  @Field({ description: 'Anti-CSRF value, 1-512 characters, echoed back unchanged to redirect_uri.' })
  state!: string;

  @Field({ description: 'PKCE challenge: BASE64URL(SHA-256(code_verifier)), 43 characters (RFC 7636).' })
  codeChallenge!: string;

  @Field({ description: 'Must be S256; anything else is refused with PKCE_METHOD_REJECTED.' })
  codeChallengeMethod!: string;
}

@InputType({
  description: "A question about the consent's account (POST /ob/funds-confirmations): does it hold this amount now?",
})
export class ConfirmFundsInput {
  @Field({ description: 'The funds-confirmation consent (con_…): the one the access token was issued for.' })
  consentId!: string;

  @Field({ description: "The TPP's reference for the question, 1-140 characters, echoed back." })
  reference!: string;

  @Field(() => GraphQLSafeInt, { description: 'Positive integer of minor units.' })
  amount!: number;

  @Field({ description: "The account's currency (LYD, USD or EUR); another is CURRENCY_MISMATCH." })
  currency!: string;
}
