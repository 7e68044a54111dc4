#!/usr/bin/env node
// Thin launcher: the CLI lives in the compiled library (npm run build).
require('../dist/src/cli/main.js').main(process.argv);
