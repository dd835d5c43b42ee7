#!/usr/bin/env node
import { defaultDeps } from './context-from-options.js';
import { runCli } from './program.js';

// The only place that sets the exit code.
process.exitCode = await runCli(process.argv.slice(2), defaultDeps());
