import { Directive, Field, ID, ObjectType } from 'type-graphql';
import type { MerchantEntity } from './merchant.entity';

@ObjectType('Merchant', { description: 'A merchant that takes payments through the gateway.' })
@Directive('@key(fields: "id")')
export class Merchant {
  @Field(() => ID, { description: 'Merchant id (mer_…).' })
  id!: string;

  @Field({ description: 'Name shown to customers at checkout.' })
  name!: string;

  @Field({ description: 'test or live: test merchants hold mk_test_ keys and never move real funds.' })
  mode!: string;

  @Field({
    description:
      'ACTIVE or SUSPENDED (by an operator: its keys and dashboard sessions answer MERCHANT_SUSPENDED and its open sessions cannot be paid).',
  })
  status!: string;

  @Field({ description: 'Registration time (ISO 8601 UTC).' })
  createdAt!: Date;

  @Field({ description: 'Time of the last change (ISO 8601 UTC).' })
  updatedAt!: Date;

  // webhookUrl and settlementIban are resolved by MerchantResolver, which checks for admin or the
  // merchant itself: a federated reference may reach this type with any caller's principal.
  entity!: MerchantEntity;
}

@ObjectType({ description: 'A newly registered merchant with its secrets, each shown this once.' })
export class MerchantRegistration {
  @Field(() => Merchant, { description: 'The merchant record.' })
  merchant!: Merchant;

  @Field({
    description: 'Merchant API key (mk_test_… or mk_live_…) for Authorization: Bearer. Shown once; stored as a hash.',
  })
  apiKey!: string;

  @Field({ description: 'Secret (whsec_…) keying the HMAC-SHA256 signature of every webhook delivery. Shown once.' })
  webhookSecret!: string;
}

@ObjectType({ description: 'A rotated merchant API key; the previous key stopped working at once.' })
export class MerchantKeyRotation {
  @Field({ description: 'The new API key. Shown once.' })
  apiKey!: string;
}

@ObjectType({
  description:
    'A rotated webhook secret; deliveries are signed with it from now on, the previous one no longer signs anything.',
})
export class WebhookSecretRotation {
  @Field({ description: 'The new webhook secret (whsec_…). Shown once.' })
  webhookSecret!: string;
}

export function toMerchant(entity: MerchantEntity): Merchant {
  return {
    id: entity.id,
    name: entity.name,
    mode: entity.mode,
    status: entity.status,
    createdAt: entity.createdAt,
    updatedAt: entity.updatedAt,
    entity,
  };
}
