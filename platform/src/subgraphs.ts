import type { RunningService, SubgraphStartOptions } from '@gateway/federation';
import * as banks from '@gateway/subgraph-banks';
import * as identity from '@gateway/subgraph-identity';
import * as openBanking from '@gateway/subgraph-open-banking';
import * as payments from '@gateway/subgraph-payments';
import type { GraphQLSchema } from 'graphql';
import type { PlatformConfig } from './config';

export interface SubgraphModule {
  name: 'banks' | 'identity' | 'payments' | 'open-banking';
  port(config: PlatformConfig): number;
  start(options: SubgraphStartOptions): Promise<RunningService>;
  /** The schema alone, for printing the committed SDL. */
  buildSchema(): Promise<GraphQLSchema>;
}

// The schema's shape does not depend on settings; these only satisfy the builders' signatures.
const printing = { platformSecret: 'sdl-printing-only', production: false };

/** Every subgraph of the supergraph, in start order. */
export const SUBGRAPHS: SubgraphModule[] = [
  { name: 'banks', port: (c) => c.ports.banks, start: banks.start, buildSchema: () => banks.buildBanksSchema(printing) },
  { name: 'identity', port: (c) => c.ports.identity, start: identity.start, buildSchema: () => identity.buildIdentitySchema() },
  { name: 'payments', port: (c) => c.ports.payments, start: payments.start, buildSchema: () => payments.buildPaymentsSchema(printing) },
  { name: 'open-banking', port: (c) => c.ports.openBanking, start: openBanking.start, buildSchema: () => openBanking.buildOpenBankingSchema(printing) },
];
