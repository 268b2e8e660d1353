import { composeSupergraph } from '@gateway/router';
import { printSubgraphSdl } from '@gateway/federation';
import { readCommittedSdl } from './sdl';
import { SUBGRAPHS } from './subgraphs';

describe('committed subgraph SDL', () => {
  it.each(SUBGRAPHS.map((subgraph) => [subgraph.name, subgraph] as const))(
    '%s/schema.graphql matches the code (run `npm run schema:print`)',
    async (_name, subgraph) => {
      expect(readCommittedSdl(subgraph.name)).toBe(printSubgraphSdl(await subgraph.buildSchema()));
    },
  );

  it('composes into one supergraph', () => {
    const supergraph = composeSupergraph(
      SUBGRAPHS.map(({ name }) => ({ name, url: `http://${name}.invalid/graphql`, sdl: readCommittedSdl(name) })),
    );
    expect(supergraph).toContain('join__Graph');
  });
});
