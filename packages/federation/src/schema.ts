import { buildSubgraphSchema } from '@apollo/subgraph';
import { printSchemaWithDirectives } from '@graphql-tools/utils';
import { createPubSub } from '@graphql-yoga/subscription';
import { parse, specifiedDirectives, type GraphQLSchema } from 'graphql';
import { buildSchema, createResolversMap, type BuildSchemaOptions } from 'type-graphql';

/**
 * The one federation version and directive set every subgraph links. v2.9 for `@cost`: a field
 * whose resolver calls a bank core declares what one selection of it costs (CORE_CALL_COST), and
 * the router charges it (router/src/core-cost.ts).
 */
const FEDERATION_LINK =
  'extend schema @link(url: "https://specs.apollo.dev/federation/v2.9", import: ["@key", "@shareable", "@external", "@requires", "@provides", "@inaccessible", "@tag", "@cost"])';

/**
 * The `@cost` of a field whose resolver calls a bank core, once per selection: one rate-limit
 * point, like a root field. Put on the field with type-graphql's `@Directive(CORE_CALL_COST)`.
 */
export const CORE_CALL_COST = '@cost(weight: 1)';

type ReferenceResolver = (reference: Record<string, unknown>, context: never, info: unknown) => unknown;

export interface FederatedSchemaOptions {
  resolvers: BuildSchemaOptions['resolvers'];
  orphanedTypes?: BuildSchemaOptions['orphanedTypes'];
  /** `__resolveReference` per entity type name: how other subgraphs' references become objects. */
  referenceResolvers?: Record<string, ReferenceResolver>;
}

/**
 * type-graphql classes -> Apollo Federation 2 subgraph schema. type-graphql prints the
 * `@Directive` usages; @apollo/subgraph adds `_service`/`_entities`; reference resolvers are
 * merged into the resolver map because type-graphql has no notion of them.
 */
export async function buildFederatedSchema(options: FederatedSchemaOptions): Promise<GraphQLSchema> {
  const schema = await buildSchema({
    resolvers: options.resolvers,
    orphanedTypes: options.orphanedTypes,
    directives: [...specifiedDirectives],
    // Subscriptions are served by the router from the event bus; the subgraph only declares them.
    pubSub: createPubSub(),
    validate: false,
    skipCheck: true,
  });
  const resolvers = createResolversMap(schema) as Record<string, Record<string, unknown>>;
  for (const [typeName, resolveReference] of Object.entries(options.referenceResolvers ?? {})) {
    resolvers[typeName] = { ...(resolvers[typeName] ?? {}), __resolveReference: resolveReference };
  }
  const typeDefs = parse(`${FEDERATION_LINK}\n\n${printSchemaWithDirectives(schema)}`);
  return buildSubgraphSchema({ typeDefs, resolvers: resolvers as never });
}
