import { Directive, Field, ID, ObjectType } from 'type-graphql';
import type { TppEntity } from './tpp.entity';

@ObjectType('Tpp', { description: 'A third-party provider (AISP or PISP) registered for Open Banking.' })
@Directive('@key(fields: "id")')
export class Tpp {
  @Field(() => ID, { description: 'TPP id (tpp_…).' })
  id!: string;

  @Field({ description: 'Name of the TPP, shown to customers on the consent page.' })
  name!: string;

  @Field(() => [String], { description: "Registered redirect URIs, stored exactly; a consent's redirect_uri must equal one of them." })
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

  @Field({ description: 'TPP access token (tpk_…) for Authorization: Bearer (the tpp query and the consent calls). Shown once; stored as a hash.' })
  tppAccessToken!: string;

  @Field({ description: 'Secret (whsec_…) that will key the HMAC-SHA256 signature of Open Banking webhook deliveries (planned). Shown once.' })
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
