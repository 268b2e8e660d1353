import { BankReference } from '@gateway/federation';
import { Field, ID, Int, ObjectType } from 'type-graphql';
import { ConsentStatus } from '../consent/consent.type';
import { VrpTerms } from '../vrp/vrp.type';

@ObjectType({
  description: 'What the consent page shows the customer (public: anyone holding the unguessable consent id).',
})
export class ConsentAuthorisation {
  @Field(() => ID, { description: 'Consent id (con_…).' })
  id!: string;

  @Field(() => ConsentStatus, {
    description:
      'Current status; an open consent past expires_at reads EXPIRED. Only AWAITING_AUTHORISATION can be approved or rejected.',
  })
  status!: ConsentStatus;

  @Field({ description: 'Name of the third-party provider asking for access, as registered.' })
  tppName!: string;

  @Field(() => BankReference, {
    description: "The customer's bank, where the accounts are (fields resolved by the banks subgraph).",
  })
  bank!: BankReference;

  @Field(() => [String], {
    description: 'Requested access: accounts:read, balances:read, transactions:read, payments:write.',
  })
  scopes!: string[];

  @Field({ description: 'The access ends at this time (ISO 8601 UTC).' })
  expiresAt!: Date;

  @Field(() => Int, {
    description:
      'Wrong one-time passwords still allowed before the consent is rejected (0 once it is no longer awaiting).',
  })
  otpAttemptsLeft!: number;

  @Field({
    description:
      "Where the customer returns afterwards: the TPP's redirect URI, so the customer can see whom they are sent to.",
  })
  redirectUri!: string;

  @Field(() => String, {
    nullable: true,
    description:
      'Once REJECTED: redirect_uri with error=access_denied, consent_id, state and iss, to send the customer back. Null otherwise.',
  })
  redirectTo!: string | null;

  @Field(() => String, {
    nullable: true,
    description:
      "While AWAITING_AUTHORISATION: the token the consent page's decision carries (rejectConsent's pageToken), bound to this consent, valid 30 minutes from this read. " +
      'For the consent page itself; a rejection without it is refused. Null otherwise.',
  })
  pageToken!: string | null;

  @Field({
    description:
      "false for a test consent (a test TPP's): the accounts it opens are the test bank's copies, and the page says so with a TEST badge.",
  })
  livemode!: boolean;

  @Field(() => VrpTerms, {
    nullable: true,
    description:
      'For a VRP consent, what the customer authorises: the payee, the currency and every limit; null for other consents.',
  })
  vrp!: VrpTerms | null;
}

@ObjectType({ description: "The outcome of the customer's decision: where to send the browser." })
export class ConsentDecision {
  @Field(() => ID, { description: 'Consent id (con_…).' })
  consentId!: string;

  @Field(() => ConsentStatus, { description: 'AUTHORISED after an approval, REJECTED after a rejection.' })
  status!: ConsentStatus;

  @Field({
    description:
      'redirect_uri with code, consent_id, state and iss (approved), or with error=access_denied, consent_id, state and iss (rejected). ' +
      'The code is single use and valid for 60 seconds; it appears nowhere else.',
  })
  redirectTo!: string;
}
