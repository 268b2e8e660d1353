import { Field, ID, ObjectType } from 'type-graphql';
import type { Credential } from '@gateway/vault';

@ObjectType('AdminKey', {
  description:
    'A named admin key (never its secret). The configured ADMIN_KEY is the first admin key and is not listed: it lives in the environment.',
})
export class AdminKey {
  @Field(() => ID, { description: 'adk_…' })
  id!: string;

  @Field({ description: 'The operator name the logs and the audit log show.' })
  name!: string;

  @Field({ description: 'When it was created (ISO 8601 UTC).' })
  createdAt!: Date;

  @Field(() => Date, { nullable: true, description: 'When it was revoked; null while it works.' })
  revokedAt!: Date | null;
}

@ObjectType('AdminKeyCreation', { description: 'A new named admin key, with its secret shown this once.' })
export class AdminKeyCreation {
  @Field(() => ID, { description: 'adk_…' })
  id!: string;

  @Field({ description: 'The operator name.' })
  name!: string;

  @Field({ description: 'When it was created (ISO 8601 UTC).' })
  createdAt!: Date;

  @Field({
    description: 'The key (adk_sec_…), for the X-Service-Admin-Key header. Shown once: only its hash is kept.',
  })
  adminKey!: string;
}

export const toAdminKey = (credential: Credential): AdminKey => ({
  id: credential.ownerId,
  name: credential.label ?? '',
  createdAt: credential.createdAt,
  revokedAt: credential.revokedAt ?? null,
});
