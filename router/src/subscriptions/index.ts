import type { Server } from 'node:http';
import type { ApolloGateway } from '@apollo/gateway';
import type { ApolloServer, BaseContext } from '@apollo/server';
import type { ExecutionResult, GraphQLSchema } from 'graphql';
import type { Registry } from 'prom-client';
import type { EventBus } from '@gateway/events';
import { newId, type GatewayError, type Logger, type Principal } from '@gateway/kernel';
import { subgraphCallerOf } from '../router-context';
import { SubscriptionHub, type ExecuteAs } from './subscription-hub';
import { attachSubscriptionServer, credentialHeadersOf } from './ws-server';

export interface RouterSubscriptionsOptions {
  server: Server;
  gateway: ApolloGateway;
  bus: EventBus;
  platformSecret: string;
  authenticate: (headers: Record<string, string>, ip: string) => Principal | Promise<Principal>;
  logger: Logger;
  registry: Registry;
  keepAliveMs?: number;
  /** See SubscriptionServerOptions.charge. */
  charge?: (principal: Principal) => Promise<GatewayError | undefined>;
  /** See SubscriptionServerOptions.credentialCheckMs and maxLifetimeSeconds. */
  credentialCheckMs?: number;
  maxLifetimeSeconds?: number;
}

export interface RouterSubscriptions {
  /** Once Apollo has started: the subscriber's queries run through it. */
  start(apollo: ApolloServer<BaseContext>): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Subscriptions on the router (DESIGN "Subscriptions"): the gateway cannot execute them, so the
 * router serves graphql-ws itself, follows the bus, and answers each event by running the
 * subscriber's selection as a query through Apollo with the subscriber's principal.
 * Call before Apollo starts (the API schema arrives with the gateway's first load).
 */
export function routerSubscriptions(options: RouterSubscriptionsOptions): RouterSubscriptions {
  let schema: GraphQLSchema | undefined;
  options.gateway.onSchemaLoadOrUpdate(({ apiSchema }) => {
    schema = apiSchema;
  });
  let apollo: ApolloServer<BaseContext> | undefined;
  const execute: ExecuteAs = async (principal, plan) => {
    const response = await apollo!.executeOperation(
      { query: plan.query, variables: plan.variables, operationName: plan.operationName },
      {
        contextValue: { principal, ...subgraphCallerOf(options.platformSecret, principal, newId('request')) },
      },
    );
    if (response.body.kind !== 'single') throw new Error('unexpected incremental result');
    return response.body.singleResult as ExecutionResult;
  };
  const hub = new SubscriptionHub(options.bus, execute, options.logger);
  let server: { close(): Promise<void> } | undefined;
  return {
    async start(started) {
      apollo = started;
      await hub.start();
      server = attachSubscriptionServer({
        server: options.server,
        path: '/graphql',
        schema: () => schema,
        authenticate: (params, ip) => options.authenticate(credentialHeadersOf(params), ip),
        hub,
        execute,
        logger: options.logger,
        registry: options.registry,
        keepAliveMs: options.keepAliveMs,
        charge: options.charge,
        credentialCheckMs: options.credentialCheckMs,
        maxLifetimeSeconds: options.maxLifetimeSeconds,
      });
    },
    async stop() {
      await server?.close();
      await hub.stop();
    },
  };
}
