import { Arg, Int, Resolver, Subscription } from 'type-graphql';
import { GatewayError } from '@gateway/kernel';
import { SettlementCycleConnection } from '../settlement/settlement.type';

const THROUGH_THE_ROUTER = 'subscribe through the router (graphql-ws on /graphql)';

/**
 * Declares the operator's live settlement cycles in the supergraph (issue 50). The router serves
 * it: `settlementCycles(first)` at once, then again whenever a cycle closes or one of its
 * positions gets a core result (internal.settlement_cycle.changed), an unchanged answer not sent.
 */
@Resolver()
export class SettlementCyclesUpdatesResolver {
  @Subscription(() => SettlementCycleConnection, {
    description:
      'The latest settlement cycles with their positions, newest first, starting with the current ones and again each time a cycle closes or a position is settled, fails or waits ' +
      "(graphql-ws on the router's /graphql; the operator console's own socket is /operator/graphql). Admin only: any other credential is FORBIDDEN. Never completes.",
    subscribe: () => {
      throw new GatewayError('VALIDATION_ERROR', THROUGH_THE_ROUTER);
    },
  })
  settlementCyclesUpdated(
    @Arg('first', () => Int, { defaultValue: 20, description: 'How many of the latest cycles, 1 to 100.' })
    _first: number,
  ): SettlementCycleConnection {
    throw new GatewayError('VALIDATION_ERROR', THROUGH_THE_ROUTER);
  }
}
