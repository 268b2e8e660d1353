import { Field, InputType } from 'type-graphql';

@InputType({ description: 'A named admin key for one operator (POST /admin/keys).' })
export class CreateAdminKeyInput {
  @Field({
    description:
      'Who holds the key: 3-40 characters of a-z, 0-9, ".", "_" and "-" (e.g. "alice" or "on-call"), never ADMIN_KEY in any spelling; unique among live keys. The logs and the audit log show it on everything the key does.',
  })
  name!: string;
}
