import { Directive, Field, ID, ObjectType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import type { PublicJwks } from '../signing-keys/jwks';
import type { TppEntity } from './tpp.entity';

@ObjectType('Tpp', { description: 'A third-party provider (AISP or PISP) registered for Open Banking.' })
@Directive('@key(fields: "id")')
export class Tpp {
  @Field(() => ID, { description: 'TPP id (tpp_…).' })
  id!: string;

  @Field({ description: 'Name of the TPP, shown to customers on the consent page.' })
  name!: string;

  @Field({
    description:
      "test or live (fixed at registration): a test TPP's consents and payment orders live in the test world and never move real funds.",
  })
  mode!: string;

  @Field(() => [String], {
    description: "Registered redirect URIs, stored exactly; a consent's redirect_uri must equal one of them.",
  })
  redirectUris!: string[];

  @Field({
    description:
      'ACTIVE, SUSPENDED (by an operator: its tpk_ token and every code and token of its consents answer TPP_SUSPENDED until it is resumed) ' +
      'or DISABLED (its client deleted its registration, RFC 7592: for good).',
  })
  status!: string;

  @Field({
    description:
      "spec (the spec's flow: a tpk_ token, a public client at the token endpoint) or fapi2 (a confidential client: private_key_jwt with a key of jwks, " +
      'client_credentials tokens instead of tpk_). Fixed at registration.',
  })
  securityProfile!: string;

  @Field(() => GraphQLJSONObject, {
    nullable: true,
    description:
      "The TPP's public signing keys as a JWK Set ({keys: [...]}, public members only); its client assertions must be signed by one of them. Null for a spec TPP.",
  })
  jwks!: PublicJwks | null;

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

  @Field(() => String, {
    nullable: true,
    description:
      'TPP access token (tpk_…) for Authorization: Bearer (the tpp query and the consent calls). Shown once; stored as a hash. ' +
      'Null for a fapi2 TPP: it authenticates with private_key_jwt and uses client_credentials access tokens instead.',
  })
  tppAccessToken!: string | null;

  @Field({
    description:
      'Secret (whsec_…) keying the signatures of Open Banking webhook deliveries (X-Service-Signature and webhook-signature). Shown once.',
  })
  webhookSecret!: string;
}

@ObjectType({ description: "A TPP's new webhook secret, shown this once." })
export class TppWebhookSecretRotation {
  @Field({
    description: 'The new secret (whsec_…). Deliveries are signed with it from now on; the old one signs nothing more.',
  })
  webhookSecret!: string;
}

/**
 * Where the webhook dispatcher (payments) delivers a TPP's events, for that service only. The
 * secret stays sealed with the platform secret on the wire: only a holder of the platform secret
 * (the dispatcher) can open it, and nothing that logs a response ever sees it raw.
 */
@ObjectType({
  description: "A TPP's webhook endpoint and sealed signing secret (service calls only: the webhook dispatcher).",
})
export class TppWebhookTarget {
  @Field(() => ID, { description: 'TPP id (tpp_…).' })
  tppId!: string;

  @Field(() => String, {
    nullable: true,
    description: 'Where Open Banking events are delivered; null when the TPP has none.',
  })
  url!: string | null;

  @Field({ description: 'The webhook secret sealed (AES-GCM) with the platform secret; never the raw secret.' })
  sealedSecret!: string;

  @Field({ description: "The TPP's world (its mode is live): its webhook endpoints get only that world's events." })
  livemode!: boolean;

  @Field({ description: 'When the TPP was registered: when its webhook_url became its primary endpoint.' })
  createdAt!: Date;
}

export function toTpp(entity: TppEntity): Tpp {
  return {
    id: entity.id,
    name: entity.name,
    mode: entity.mode,
    redirectUris: [...entity.redirectUris],
    status: entity.status,
    securityProfile: entity.securityProfile,
    jwks: entity.jwks ? { keys: entity.jwks.keys.map((key) => ({ ...key })) } : null,
    createdAt: entity.createdAt,
    entity,
  };
}
