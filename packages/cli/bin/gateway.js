#!/usr/bin/env node
// In this repository the CLI runs from its TypeScript sources, like every other entry point
// (scripts/register.js compiles them with SWC on load).
require('../../../scripts/register.js');
const { main } = require('../src/main.ts');

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
