import { Field, InputType } from 'type-graphql';

@InputType({
  description:
    'A key-value pair of metadata: up to 20 keys per object, keys up to 40 characters (no brackets), values up to 500. In an update, a value of "" removes the key.',
})
export class MetadataEntryInput {
  @Field({ description: '1 to 40 characters, no brackets or control characters.' })
  key!: string;

  @Field({ description: 'Up to 500 characters; "" removes the key (an update) or sets nothing (a creation).' })
  value!: string;
}

@InputType({ description: 'Keeps the objects whose metadata holds this key with exactly this value.' })
export class MetadataFilter {
  @Field({ description: 'The metadata key.' })
  key!: string;

  @Field({ description: 'Its value, 1 to 500 characters, compared exactly.' })
  value!: string;
}
