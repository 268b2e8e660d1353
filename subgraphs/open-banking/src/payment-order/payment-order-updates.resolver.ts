import { Arg, ID, Resolver, Subscription } from 'type-graphql';
import { GatewayError } from '@gateway/kernel';
import { PaymentOrder } from './payment-order.type';

const ROUTER_ONLY = 'subscribe through the router (graphql-ws on /graphql)';

/**
 * Declares paymentOrderUpdated in the supergraph. The router serves it (its SUBSCRIPTION_FIELDS
 * row: graphql-ws on /graphql, fed by the event bus, each message resolved through the gateway as
 * paymentOrder(id) with the subscriber's credentials); a subgraph never receives a subscription
 * operation, so subscribing here directly is refused.
 */
@Resolver()
export class PaymentOrderUpdatesResolver {
  @Subscription(() => PaymentOrder, {
    description:
      "Every status change of a payment order, starting with its current state, until a final status: COMPLETED, FAILED or REJECTED (graphql-ws on the router's /graphql). " +
      'connectionParams: `authorization` (Bearer tpk_…: the TPP that created the order; anyone else gets PAYMENT_ORDER_NOT_FOUND, as for an unknown id).',
    subscribe: () => {
      throw new GatewayError('VALIDATION_ERROR', ROUTER_ONLY);
    },
  })
  paymentOrderUpdated(@Arg('id', () => ID, { description: 'Payment order id (po_…).' }) _id: string): PaymentOrder {
    throw new GatewayError('VALIDATION_ERROR', ROUTER_ONLY);
  }
}
