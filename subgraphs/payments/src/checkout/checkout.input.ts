import { Field, InputType } from 'type-graphql';

@InputType({
  description: 'Who pays: an alias (handle or handle@bank_handle) or an IBAN registered in the identity registry.',
})
export class PayerInput {
  @Field({ description: 'alias or iban.' })
  type!: string;

  @Field({ description: 'The handle or the IBAN.' })
  value!: string;
}

@InputType({ description: "The payer's authorization at checkout (POST /pay/{session_id}/authorize)." })
export class AuthorizeCheckoutInput {
  @Field(() => PayerInput, { description: 'The paying account.' })
  payer!: PayerInput;

  @Field({ description: "The one-time password from the payer's bank (4-12 digits)." })
  otp!: string;
}
