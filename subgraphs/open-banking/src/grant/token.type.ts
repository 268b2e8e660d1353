import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType('TokenResponse', {
  description:
    'Tokens of an Open Banking grant (spec "Token response"; POST /ob/token). Keep both secret: they are shown this once.',
})
export class TokenResponse {
  @Field({
    description:
      'Opaque access token (at_…), valid 15 minutes: Authorization: Bearer, with X-Consent-Id, on data and payment calls.',
  })
  accessToken!: string;

  @Field({
    description:
      'Opaque refresh token (rt_…), valid 90 days, single use: each refresh returns a new one and invalidates this one at once.',
  })
  refreshToken!: string;

  @Field({ description: 'Always Bearer.' })
  tokenType!: string;

  @Field(() => Int, { description: 'Seconds the access token lives: 900.' })
  expiresIn!: number;

  @Field({ description: "The consent's granted scopes, separated by single spaces." })
  scope!: string;
}
