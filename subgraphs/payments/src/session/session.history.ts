import { Ctx, Field, FieldResolver, ObjectType, Resolver, Root } from 'type-graphql';
import { OutboxEvent } from '@gateway/events';
import type { SubgraphContext } from '@gateway/federation';
import { SESSION_AGGREGATE } from './session.events';
import { PaymentSession, PaymentSessionStatus } from './session.type';

@ObjectType('PaymentSessionStatusChange', {
  description: 'A status a session entered, when, and the event that told its merchant.',
})
export class PaymentSessionStatusChange {
  @Field(() => PaymentSessionStatus, { description: 'The status entered.' })
  status!: PaymentSessionStatus;

  @Field({ description: 'When (ISO 8601 UTC): the time of the move, written with it in one transaction.' })
  at!: Date;

  @Field({
    description:
      'The event written with the move (payment.initiated, payment.processing, payment.completed, payment.failed, payment.expired).',
  })
  event!: string;

  @Field(() => String, { nullable: true, description: 'Why it FAILED, on the failed move.' })
  failureCode!: string | null;
}

/**
 * A session's status changes, read from the events each move writes in its own transaction (the
 * outbox keeps them): the real order and time of every move, PROCESSING and SETTLEMENT_PENDING
 * included, which the session's own timestamps do not keep. Whoever can see the session (its
 * merchant, an operator, its payer) can see how it got there; nobody else reaches the session.
 */
@Resolver(() => PaymentSession)
export class SessionHistoryResolver {
  @FieldResolver(() => [PaymentSessionStatusChange], {
    description: 'Every status the session entered, oldest first, with when (its timeline).',
  })
  async statusHistory(
    @Root() session: PaymentSession,
    @Ctx() context: SubgraphContext,
  ): Promise<PaymentSessionStatusChange[]> {
    const events = await context.em.find(
      OutboxEvent,
      { aggregateType: SESSION_AGGREGATE, aggregateId: session.id },
      { orderBy: { sequence: 'asc' } },
    );
    return events.map((event) => ({
      status: PaymentSessionStatus[event.data.status as keyof typeof PaymentSessionStatus],
      at: event.createdAt,
      event: event.kind,
      failureCode: typeof event.data.failure_code === 'string' ? event.data.failure_code : null,
    }));
  }
}
