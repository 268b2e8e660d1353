const fs = require('node:fs');
const path = require('node:path');

const swc = JSON.parse(fs.readFileSync(path.join(__dirname, '.swcrc'), 'utf8'));
const common = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['@swc/jest', { ...swc, swcrc: false }] },
  testPathIgnorePatterns: ['/node_modules/'],
  // Built packages (packages/sdk/dist) repeat their package's name; jest resolves workspaces from sources.
  modulePathIgnorePatterns: ['/dist/'],
};

/**
 * One jest run over every workspace: unit specs beside the code, end-to-end tests in test/. In one
 * process the platform's parts call each other in process (packages/kernel/src/in-process.ts); the
 * second project runs the payments' idempotency, concurrency, crash and callback tests again with
 * GRAPHQL_TRANSPORT=http, the transport of split layouts, so both keep every guarantee.
 */
module.exports = {
  testTimeout: 60_000,
  maxWorkers: 2,
  // A guard: a worker past this after a test file is replaced by a fresh one. A worker once ran out
  // of heap (4 GB) in CI when each platform start left ~20 MB behind (type-graphql's global
  // metadata kept every start's resolver classes; packages/federation/src/schema.ts now drops them).
  workerIdleMemoryLimit: '1500MB',
  projects: [
    {
      ...common,
      displayName: 'all',
      roots: [
        '<rootDir>/packages',
        '<rootDir>/subgraphs',
        '<rootDir>/router',
        '<rootDir>/rest-compat',
        '<rootDir>/platform',
        '<rootDir>/examples',
        '<rootDir>/test',
      ],
      testMatch: ['**/*.spec.ts', '**/*.e2e.ts'],
    },
    {
      ...common,
      displayName: 'http transport',
      roots: ['<rootDir>/test'],
      testMatch: [
        'payments/sessions',
        'payments/recovery',
        'payments/callbacks',
        'payments/checkout',
        'events/subscriptions',
        // Issue 46: a service principal from outside is refused at both edges where services call the router over HTTP.
        'observability/service-principal',
      ].map((name) => `<rootDir>/test/${name}.e2e.ts`),
      setupFiles: ['<rootDir>/test/support/http-transport.ts'],
    },
  ],
};
