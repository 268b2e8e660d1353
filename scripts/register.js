// The platform runs on Node 24 LTS (the `node` devDependency, first on PATH in npm scripts). An older
// runtime here means that package did not install: say so in one line, before anything else loads.
const [major] = process.versions.node.split('.').map(Number);
if (major < 22) {
  process.stderr.write(
    `Node ${process.versions.node} is too old (22.12 or later, 24 LTS tested): run \`npm install\` to fetch Node 24 from the npm registry (the \`node\` package), or install Node 24.\n`,
  );
  process.exit(1);
}

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
