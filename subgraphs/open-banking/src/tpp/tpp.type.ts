import { Directive, Field, ID, ObjectType } from 'type-graphql';
import type { TppEntity } from './tpp.entity';

@ObjectType('Tpp', { description: 'A third-party provider (AISP or PISP) registered for Open Banking.' })
@Directive('@key(fields: "id")')
export class Tpp {
  @Field(() => ID, { description: 'TPP id (tpp_…).' })
  id!: string;

  @Field({ description: 'Name shown to customers on the consent page.' })
  name!: string;

  @Field(() => [String], { description: "Registered redirect URIs; a consent's redirect_uri must equal one of them exactly." })
  redirectUris!: string[];

  @Field({ description: 'Registration time (ISO 8601 UTC).' })
  createdAt!: Date;

  // webhookUrl is resolved by TppResolver, which checks for admin or the TPP itself: a federated
  // reference may reach this type with any caller's principal.
  entity!: TppEntity;
}

@ObjectType({ description: 'A newly registered TPP with its secrets, each shown this once.' })
export class TppRegistration {
  @Field(() => Tpp, { description: 'The TPP record.' })
  tpp!: Tpp;

  @Field({ description: 'TPP access token (tpk_…) for Authorization: Bearer on consent calls. Shown once; stored as a hash.' })
  tppAccessToken!: string;

  @Field({ description: 'Secret (whsec_…) keying the HMAC-SHA256 signature of every Open Banking webhook delivery. Shown once.' })
  webhookSecret!: string;
}

export function toTpp(entity: TppEntity): Tpp {
  return {
    id: entity.id,
    name: entity.name,
    redirectUris: [...entity.redirectUris],
    createdAt: entity.createdAt,
    entity,
  };
}
