import { buildSubgraphSchema } from '@apollo/subgraph';
import { printSchemaWithDirectives } from '@graphql-tools/utils';
import { createPubSub } from '@graphql-yoga/subscription';
import { parse, specifiedDirectives, type GraphQLSchema } from 'graphql';
import { buildSchema, createResolversMap, getMetadataStorage, type BuildSchemaOptions } from 'type-graphql';

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
  forgetResolverClasses(options.resolvers);
  const resolvers = createResolversMap(schema) as Record<string, Record<string, unknown>>;
  for (const [typeName, resolveReference] of Object.entries(options.referenceResolvers ?? {})) {
    resolvers[typeName] = { ...(resolvers[typeName] ?? {}), __resolveReference: resolveReference };
  }
  const typeDefs = parse(`${FEDERATION_LINK}\n\n${printSchemaWithDirectives(schema)}`);
  return buildSubgraphSchema({ typeDefs, resolvers: resolvers as never });
}

/** The resolver class last built under each name: a class made again per start replaces its earlier self. */
const builtResolverClasses = new Map<string, unknown>();

/**
 * Drops resolver classes that a later build made again from type-graphql's global metadata
 * storage. Subgraphs make most resolver classes per start (`create*Resolver(service)`), and the
 * storage is process-wide: without this, every start's classes, and the services and ORMs their
 * closures hold, stayed reachable for the life of the process (~20 MB per platform start in the
 * tests). A class defined once at module level is the same object at every build and is kept.
 */
function forgetResolverClasses(resolvers: BuildSchemaOptions['resolvers']): void {
  const replaced = new Set<unknown>();
  for (const resolver of resolvers as ReadonlyArray<{ name: string }>) {
    const earlier = builtResolverClasses.get(resolver.name);
    if (earlier !== undefined && earlier !== resolver) replaced.add(earlier);
    builtResolverClasses.set(resolver.name, resolver);
  }
  if (!replaced.size) return;
  const storage = getMetadataStorage() as unknown as Record<string, unknown> & { initCache(): void };
  for (const entries of Object.values(storage)) {
    if (!Array.isArray(entries)) continue;
    for (let index = entries.length - 1; index >= 0; index--)
      if (replaced.has((entries[index] as { target?: unknown } | undefined)?.target)) entries.splice(index, 1);
  }
  storage.initCache();
}
