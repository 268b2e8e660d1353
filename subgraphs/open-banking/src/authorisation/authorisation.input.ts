import { Field, InputType } from 'type-graphql';

@InputType({
  description:
    "Who approves: an alias (handle or handle@bank_handle) or an IBAN registered in the identity registry at the consent's bank.",
})
export class ConsentCustomerInput {
  @Field({ description: 'alias or iban.' })
  type!: string;

  @Field({ description: 'The handle or the IBAN.' })
  value!: string;
}

@InputType({ description: "The customer's approval at the consent page (POST /ob/auth/{consent_id}/approve)." })
export class ApproveConsentInput {
  @Field(() => ConsentCustomerInput, {
    description: "The approving customer, identified by one of their accounts at the consent's bank.",
  })
  customer!: ConsentCustomerInput;

  @Field({ description: "The one-time password from the customer's bank (4-12 digits)." })
  otp!: string;
}
