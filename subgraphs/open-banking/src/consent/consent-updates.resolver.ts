import { Arg, ID, Resolver, Subscription } from 'type-graphql';
import { GatewayError } from '@gateway/kernel';
import { Consent } from './consent.type';

const ROUTER_ONLY = 'subscribe through the router (graphql-ws on /graphql)';

/**
 * Declares consentUpdated in the supergraph. The router serves it (its SUBSCRIPTION_FIELDS row:
 * graphql-ws on /graphql, fed by the event bus, each message resolved through the gateway as
 * consent(id) with the subscriber's credentials); a subgraph never receives a subscription
 * operation, so subscribing here directly is refused.
 */
@Resolver()
export class ConsentUpdatesResolver {
  @Subscription(() => Consent, {
    description:
      "Every status change of a consent, starting with its current state, until a final status: REJECTED, REVOKED or EXPIRED (graphql-ws on the router's /graphql). " +
      'connectionParams: `authorization` (Bearer tpk_…: the TPP that requested the consent; anyone else gets CONSENT_NOT_FOUND, as for an unknown id). ' +
      "Any field may be selected, including fields of other subgraphs (bank { displayName }); each message is resolved with the subscriber's credentials.",
    subscribe: () => {
      throw new GatewayError('VALIDATION_ERROR', ROUTER_ONLY);
    },
  })
  consentUpdated(@Arg('id', () => ID, { description: 'Consent id (con_…).' }) _id: string): Consent {
    throw new GatewayError('VALIDATION_ERROR', ROUTER_ONLY);
  }
}
