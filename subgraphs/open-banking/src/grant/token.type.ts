import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType('TokenResponse', {
  description:
    'Tokens of an Open Banking grant (spec "Token response"; POST /ob/token). Keep both secret: they are shown this once.',
})
export class TokenResponse {
  @Field({
    description:
      'Opaque access token (at_…), valid 15 minutes: Authorization: Bearer (or DPoP when bound), with X-Consent-Id, on data and payment calls.',
  })
  accessToken!: string;

  @Field({
    description:
      'Opaque refresh token (rt_…), valid 90 days, single use: each refresh returns a new one and invalidates this one at once.',
  })
  refreshToken!: string;

  @Field({
    description:
      'DPoP when the tokens are bound to the key of the request’s DPoP proof (always for fapi2 TPPs): send Authorization: DPoP <token> with a proof; else Bearer.',
  })
  tokenType!: string;

  @Field(() => Int, { description: 'Seconds the access token lives: 900.' })
  expiresIn!: number;

  @Field({ description: "The consent's granted scopes, separated by single spaces." })
  scope!: string;
}

@ObjectType('ClientTokenResponse', {
  description:
    "A fapi2 TPP's own access token (grant_type=client_credentials; POST /ob/token): it stands for the TPP where a spec TPP uses its tpk_. No refresh token.",
})
export class ClientTokenResponse {
  @Field({
    description:
      'Opaque access token (cat_…), valid 15 minutes: Authorization: DPoP with a proof, without X-Consent-Id, on consent calls and payment order reads.',
  })
  accessToken!: string;

  @Field({ description: 'Always DPoP: bound to the key of the request’s DPoP proof (RFC 9449).' })
  tokenType!: string;

  @Field(() => Int, { description: 'Seconds the access token lives: 900.' })
  expiresIn!: number;

  @Field({ description: 'The granted client scopes (accounts, payments), separated by single spaces.' })
  scope!: string;
}
