#!/usr/bin/env node
// The package bin: runs the TypeScript entry through SWC, as every command of the repository does.
const path = require('node:path');
require(path.join(__dirname, '..', '..', '..', 'scripts', 'register.js'));
require(path.join(__dirname, '..', 'src', 'main.ts'));
