import { Field, ID, ObjectType } from 'type-graphql';
import { PaymentSessionStatus } from '../session/session.type';

@ObjectType({ description: "The gateway's receipt for a credit confirmation." })
export class CreditConfirmationReceipt {
  @Field({ description: 'The confirmed reference.' })
  paymentReference!: string;

  @Field(() => ID, { description: 'The session it completed.' })
  sessionId!: string;

  @Field(() => PaymentSessionStatus, { description: 'COMPLETED.' })
  status!: PaymentSessionStatus;

  @Field({ description: 'True when this reference had already been confirmed: nothing changed now.' })
  duplicate!: boolean;
}
