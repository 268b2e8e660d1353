import { Field, InputType } from 'type-graphql';

@InputType({ description: 'A named admin key for one operator (POST /admin/keys).' })
export class CreateAdminKeyInput {
  @Field({
    description:
      'Who holds the key, 1-64 printable characters, e.g. "alice" or "on-call"; unique among live keys. The logs and the audit log show it on everything the key does.',
  })
  name!: string;
}
