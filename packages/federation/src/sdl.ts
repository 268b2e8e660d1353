import { printSubgraphSchema } from '@apollo/subgraph';
import type { GraphQLSchema } from 'graphql';

const HEADER =
  '# Generated from the type-graphql classes by `npm run schema:print`. Do not edit: a test fails when it drifts.\n';

/** The SDL committed as subgraphs/<name>/schema.graphql, which the router composes. */
export const printSubgraphSdl = (schema: GraphQLSchema): string => `${HEADER}${printSubgraphSchema(schema).trim()}\n`;
