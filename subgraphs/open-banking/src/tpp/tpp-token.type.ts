import { Field, ObjectType } from 'type-graphql';

@ObjectType('TppTokenRotation', { description: "A TPP's new access token, shown once." })
export class TppTokenRotation {
  @Field({
    description:
      'The new tpk_ token, for Authorization: Bearer. Shown once; the old one is refused from now on (INVALID_API_KEY).',
  })
  tppAccessToken!: string;
}
