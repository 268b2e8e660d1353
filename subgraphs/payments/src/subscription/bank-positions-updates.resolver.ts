import { Arg, Resolver, Subscription } from 'type-graphql';
import { GatewayError } from '@gateway/kernel';
import { BankPosition } from '../net-debit/net-debit.type';

const THROUGH_THE_ROUTER = 'subscribe through the router (graphql-ws on /graphql)';

/**
 * Declares the operator's live positions in the supergraph (issue 50). As for the other
 * subscriptions, the router serves it: it answers `bankPositions(handle)` at once and again
 * whenever an event that can move a position reaches the bus (a movement's, a liquidity alert, a
 * cap change), sending only an answer that differs from the last one.
 */
@Resolver()
export class BankPositionsUpdatesResolver {
  @Subscription(() => [BankPosition], {
    description:
      "A bank's net debit positions (cap, position, reserved, headroom per currency and world), starting with the current ones and again each time they change " +
      "(graphql-ws on the router's /graphql; the operator console's own socket is /operator/graphql). Admin only: any other credential is FORBIDDEN. " +
      "Never completes; each message is resolved with the subscriber's credentials.",
    subscribe: () => {
      throw new GatewayError('VALIDATION_ERROR', THROUGH_THE_ROUTER);
    },
  })
  bankPositionsUpdated(@Arg('handle', { description: 'The bank.' }) _handle: string): BankPosition[] {
    throw new GatewayError('VALIDATION_ERROR', THROUGH_THE_ROUTER);
  }
}
