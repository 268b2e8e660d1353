import { Field, InputType } from 'type-graphql';
import { GraphQLSafeInt } from 'graphql-scalars';

@InputType({ description: 'The payee of every payment of a VRP consent.' })
export class VrpCreditorInput {
  @Field({ description: 'iban or alias.' })
  type!: string;

  @Field({ description: 'The IBAN (format and mod-97 checked) or the alias (handle or handle@bank_handle).' })
  value!: string;
}

@InputType({ description: 'One periodic limit: what the payments may add up to within each period.' })
export class PeriodicLimitInput {
  @Field({ description: 'Day, Week, Fortnight, Month, Half-year or Year.' })
  periodType!: string;

  @Field({
    description:
      'Consent (periods count from UTC midnight of valid_from) or Calendar (calendar days, Monday weeks, months, half-years, years). ' +
      'A Calendar Fortnight is refused.',
  })
  periodAlignment!: string;

  @Field(() => GraphQLSafeInt, { description: 'Positive integer of minor units, in the consent currency.' })
  amount!: number;
}

@InputType({
  description: "The limits the customer approves and the platform enforces (UK Open Banking's ControlParameters).",
})
export class ControlParametersInput {
  @Field(() => GraphQLSafeInt, { description: 'The most one payment may be: positive integer of minor units.' })
  maximumIndividualAmount!: number;

  @Field(() => [PeriodicLimitInput], { description: 'At least one; a period type at most once per alignment.' })
  periodicLimits!: PeriodicLimitInput[];

  @Field(() => String, {
    nullable: true,
    description: 'ISO 8601 date-time with a time zone: no payment before it. Default: when the consent is created.',
  })
  validFrom?: string | null;

  @Field(() => String, {
    nullable: true,
    description:
      "ISO 8601 date-time with a time zone, after valid_from: no payment from it on, and the consent expires then. Default: the bank's maximum consent expiry.",
  })
  validTo?: string | null;
}

@InputType({
  description:
    'A VRP consent request (POST /ob/vrp-consents): the customer authorises the TPP once for a series of payments to one payee within control parameters.',
})
export class CreateVrpConsentInput {
  @Field({ description: "Handle of the payer's bank; it must take part in Open Banking (ob_enabled)." })
  bankHandle!: string;

  @Field(() => VrpCreditorInput, { description: 'The payee.' })
  creditor!: VrpCreditorInput;

  @Field({ description: 'LYD, USD or EUR: every payment and limit is in it; the payer pays from an account in it.' })
  currency!: string;

  @Field({ description: "The TPP's reference for the consent, 1-140 characters, shown to the customer." })
  reference!: string;

  @Field(() => ControlParametersInput, { description: 'The limits.' })
  controlParameters!: ControlParametersInput;

  @Field({ description: "Where the customer returns: exactly one of the TPP's registered redirect URIs." })
  redirectUri!: string;

  @Field({ description: 'Anti-CSRF value, 1-512 characters, echoed back unchanged to redirect_uri.' })
  state!: string;

  @Field({ description: 'PKCE challenge: BASE64URL(SHA-256(code_verifier)), 43 characters (RFC 7636).' })
  codeChallenge!: string;

  @Field({ description: 'Must be S256; anything else is refused with PKCE_METHOD_REJECTED.' })
  codeChallengeMethod!: string;
}

@InputType({ description: 'A payment under a VRP consent (POST /ob/vrp-payments).' })
export class CreateVrpPaymentInput {
  @Field({ description: 'The VRP consent (con_…): the one the access token was issued for.' })
  consentId!: string;

  @Field(() => GraphQLSafeInt, { description: 'Positive integer of minor units, in the consent currency.' })
  amount!: number;

  @Field({ description: "The TPP's reference for the payment, 1-140 characters." })
  reference!: string;
}
