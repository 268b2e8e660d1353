// Runs the TypeScript sources directly (no build step): the same SWC settings as the tests
// (.swcrc), including decorator metadata, which type-graphql and MikroORM read at runtime.
const { addHook } = require('pirates');
const { transformSync } = require('@swc/core');
const path = require('node:path');

const swcrc = path.join(__dirname, '..', '.swcrc');
process.setSourceMapsEnabled(true);
addHook((code, filename) => transformSync(code, { filename, configFile: swcrc, swcrc: false }).code, {
  exts: ['.ts'],
  ignoreNodeModules: true,
});
