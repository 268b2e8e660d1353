import { composeServices } from '@apollo/composition';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
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

/** The URL a subgraph has in a supergraph composed by name only (callers map names to URLs). */
export const placeholderUrl = (name: string) => `http://${name}.subgraph.invalid/graphql`;

const compositionVersion = (): string => {
  const require = createRequire(__filename);
  const main = require.resolve('@apollo/composition');
  return (JSON.parse(readFileSync(join(dirname(main), '..', 'package.json'), 'utf8')) as { version: string }).version;
};

/**
 * The supergraph of these SDLs, each subgraph at its placeholderUrl: the same SDLs compose the
 * same supergraph whatever ports the subgraphs listen on. With `cacheDir`, a composition is kept
 * there under a hash of the names, the SDLs and @apollo/composition's version, and read back by
 * the next start of the same schemas: a composition takes 0.6-1.3 s on a busy 2-core machine, and
 * the tests start a platform some two hundred times a run (SUPERGRAPH_CACHE_DIR). A file that
 * cannot be read or written is composed again; a failed composition is never kept.
 */
export function composeSupergraphByName(
  subgraphs: ReadonlyArray<Pick<SubgraphEndpoint, 'name' | 'sdl'>>,
  cacheDir?: string,
): string {
  const named = subgraphs.map(({ name, sdl }) => ({ name, url: placeholderUrl(name), sdl }));
  if (!cacheDir) return composeSupergraph(named);
  const key = createHash('sha256')
    .update(JSON.stringify([compositionVersion(), named.map(({ name, sdl }) => [name, sdl])]))
    .digest('hex');
  const file = join(cacheDir, `${key}.graphql`);
  try {
    return readFileSync(file, 'utf8');
  } catch {
    // Not composed yet (or unreadable): compose below.
  }
  const supergraph = composeSupergraph(named);
  try {
    mkdirSync(cacheDir, { recursive: true });
    // Written whole, then renamed: a start reading it meanwhile sees no file or all of it.
    const partial = `${file}.${process.pid}.${Date.now()}.tmp`;
    writeFileSync(partial, supergraph);
    renameSync(partial, file);
  } catch {
    // A cache that cannot be written costs the next start a composition, nothing else.
  }
  return supergraph;
}
