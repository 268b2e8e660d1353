import { ApolloArmor } from '@escape.tech/graphql-armor';
import { queryLimitRules } from './query-limits';

/**
 * Document shape caps (graphql-armor), on top of the per-class costs the edge charges: aliases are
 * what let one request multiply a root field, so they are capped well below any class's budget.
 */
export const MAX_ALIASES = 30;
const MAX_DIRECTIVES = 50;
/** graphql-armor's static cost (objects 2, scalars 1, ×1.5 per level): a bound on planning and fan-out work. */
const MAX_STATIC_COST = 5000;

export interface DocumentLimitOptions {
  production: boolean;
  maxDepth?: number;
  maxFields?: number;
  /** Aliases per document (graphql-armor max-aliases); default MAX_ALIASES. */
  maxAliases?: number;
}

/**
 * The edge's document limits, for Apollo and the forwarder alike: depth and field count
 * (queryLimitRules, which count through fragments) and graphql-armor's alias, directive and
 * static-cost caps, refused in validation (BAD_USER_INPUT, which formatGatewayError answers as 400
 * VALIDATION_ERROR); in production "Did you mean …" field suggestions are masked, as introspection
 * is off there. The token cap is graphql's own parser option (MAX_TOKENS) instead of armor's
 * max-tokens plugin: that one throws from parsingDidStart, which Apollo Server 5 answers with a 500.
 */
export function documentLimits(options: DocumentLimitOptions) {
  const armor = new ApolloArmor({
    maxAliases: { n: options.maxAliases ?? MAX_ALIASES },
    maxTokens: { enabled: false },
    maxDirectives: { n: MAX_DIRECTIVES },
    costLimit: { maxCost: MAX_STATIC_COST },
    maxDepth: { enabled: false },
    blockFieldSuggestion: { enabled: options.production },
  }).protect();
  const validationRules = [
    ...queryLimitRules(options.maxDepth ?? 12, options.maxFields ?? 500, !options.production),
    ...armor.validationRules,
  ];
  return { validationRules, plugins: armor.plugins };
}
