import { Arg, ID, Resolver, Subscription } from 'type-graphql';
import { GatewayError } from '@gateway/kernel';
import { PaymentSession } from '../session/session.type';

/**
 * Declares the subscription in the supergraph. The router serves it (graphql-ws on /graphql,
 * fed by the event bus, each message resolved through the gateway); a subgraph never receives
 * a subscription operation, so subscribing here directly is refused.
 */
@Resolver()
export class SessionUpdatesResolver {
  @Subscription(() => PaymentSession, {
    description:
      "Every status change of a payment session, starting with its current state, until a final status (graphql-ws on the router's /graphql). " +
      "connectionParams: `authorization` (Bearer merchant key: the merchant's own sessions) or `sessionToken` (sst_: that checkout's session). " +
      "Any field may be selected, including fields of other subgraphs (creditorBank { displayName }); each message is resolved with the subscriber's credentials.",
    subscribe: () => {
      throw new GatewayError('VALIDATION_ERROR', 'subscribe through the router (graphql-ws on /graphql)');
    },
  })
  paymentSessionUpdated(@Arg('id', () => ID, { description: 'Session id (ops_…).' }) _id: string): PaymentSession {
    throw new GatewayError('VALIDATION_ERROR', 'subscribe through the router (graphql-ws on /graphql)');
  }
}
