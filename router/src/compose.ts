import { composeServices } from '@apollo/composition';
import { parse } from 'graphql';

export interface SubgraphEndpoint {
  name: string;
  /** GraphQL endpoint of the running subgraph. */
  url: string;
  /** Its committed SDL (subgraphs/<name>/schema.graphql). */
  sdl: string;
}

/**
 * Composes the supergraph from the committed subgraph SDL, so the router starts without asking
 * the subgraphs and a composition error stops it at once with the reason.
 */
export function composeSupergraph(subgraphs: SubgraphEndpoint[]): string {
  const result = composeServices(subgraphs.map(({ name, url, sdl }) => ({ name, url, typeDefs: parse(sdl) })));
  if (result.errors) {
    throw new Error(`supergraph composition failed:\n${result.errors.map((error) => `  ${error.message}`).join('\n')}`);
  }
  return result.supergraphSdl;
}
