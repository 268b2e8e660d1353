import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType('BankKeyRevocation', { description: "An operator's revocation of a bank's key." })
export class BankKeyRevocation {
  @Field({ description: 'Bank handle.' })
  bankHandle!: string;

  @Field(() => Int, { description: 'How many live bank keys were revoked (0: none was live).' })
  revokedKeys!: number;
}

@ObjectType('InternalKeyRotation', { description: "A bank's new internal key, shown once." })
export class InternalKeyRotation {
  @Field({
    description:
      'The new X-Service-Internal-Key: the gateway presents it on every core call from now on, and the core sends it on its callbacks. Shown once.',
  })
  internalKey!: string;

  @Field({
    description:
      'Until when (ISO 8601 UTC) the previous internal key is still accepted on the core’s callbacks (INTERNAL_KEY_GRACE_SECONDS after the rotation).',
  })
  previousKeyExpiresAt!: Date;
}
