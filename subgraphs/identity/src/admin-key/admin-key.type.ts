import { Field, ID, ObjectType } from 'type-graphql';
import type { Credential } from '@gateway/vault';
import type { RevokedAdminKey } from './admin-key.service';

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

  @Field(() => String, {
    nullable: true,
    description:
      'The admin key that created it: its id (adk_…), or ADMIN_KEY for the configured key. Revoking that key revokes this one. Null only for a key whose maker is not known (created before lineage was recorded and missing from the audit log).',
  })
  createdBy!: string | null;
}

@ObjectType('AdminKeyRevocation', {
  description: 'A revoked admin key (never its secret), with the keys revoked with it.',
})
export class AdminKeyRevocation extends AdminKey {
  @Field(() => [AdminKey], {
    description:
      'Every key it created, and the keys those created, transitively, oldest first: all revoked with it, in the same transaction (a key revoked earlier keeps its revokedAt).',
  })
  revokedWith!: AdminKey[];
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
    description:
      'The admin key that created it (the calling key): its id (adk_…), or ADMIN_KEY for the configured key. Revoking that key revokes this one.',
  })
  createdBy!: string;

  @Field({
    description:
      'The key (adm_…, the prefix of every admin key, for secret scanners), for the X-Service-Admin-Key header. Shown once: only its hash is kept.',
  })
  adminKey!: string;
}

export const toAdminKey = (credential: Credential): AdminKey => ({
  id: credential.ownerId,
  name: credential.label ?? '',
  createdAt: credential.createdAt,
  revokedAt: credential.revokedAt ?? null,
  createdBy: credential.createdBy ?? null,
});

export const toAdminKeyRevocation = ({ credential, lineage }: RevokedAdminKey): AdminKeyRevocation => ({
  ...toAdminKey(credential),
  revokedWith: lineage.map(toAdminKey),
});
