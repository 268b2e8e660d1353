import { Field, ObjectType } from 'type-graphql';
import type { Metadata } from './metadata.rules';

@ObjectType({
  description:
    "One of the merchant's own key-value pairs on an object (its order id, its customer number): never shown to the payer.",
})
export class MetadataEntry {
  @Field({ description: 'Up to 40 characters.' })
  key!: string;

  @Field({ description: 'Up to 500 characters.' })
  value!: string;
}

/** Stored metadata as the graph shows it: entries in key order (a stable answer for equal objects). */
export function toMetadataEntries(metadata: Metadata | null | undefined): MetadataEntry[] {
  return Object.keys(metadata ?? {})
    .sort()
    .map((key) => ({ key, value: metadata![key]! }));
}
