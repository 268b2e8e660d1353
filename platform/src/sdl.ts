import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const REPO_ROOT = join(__dirname, '..', '..');

/** Where a subgraph's printed SDL is committed. */
export const sdlPath = (name: string): string => join(REPO_ROOT, 'subgraphs', name, 'schema.graphql');

export const readCommittedSdl = (name: string): string => readFileSync(sdlPath(name), 'utf8');
