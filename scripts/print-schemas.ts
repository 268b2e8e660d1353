import { writeFileSync } from 'node:fs';
import { printSubgraphSdl } from '@gateway/federation';
import { sdlPath, SUBGRAPHS } from '@gateway/platform';

/** `npm run schema:print`: writes every subgraph's SDL to subgraphs/<name>/schema.graphql. */
void (async () => {
  for (const subgraph of SUBGRAPHS) {
    writeFileSync(sdlPath(subgraph.name), printSubgraphSdl(await subgraph.buildSchema()));
    console.log(`printed ${sdlPath(subgraph.name)}`);
  }
})();
