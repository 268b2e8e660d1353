const fs = require('node:fs');
const path = require('node:path');

const swc = JSON.parse(fs.readFileSync(path.join(__dirname, '.swcrc'), 'utf8'));

/** One jest run over every workspace: unit specs beside the code, end-to-end tests in test/. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/packages', '<rootDir>/subgraphs', '<rootDir>/router', '<rootDir>/rest-compat', '<rootDir>/platform', '<rootDir>/test'],
  testMatch: ['**/*.spec.ts', '**/*.e2e.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { ...swc, swcrc: false }] },
  testPathIgnorePatterns: ['/node_modules/'],
  testTimeout: 60_000,
  maxWorkers: 2,
};
