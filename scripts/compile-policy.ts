/**
 * Build step: compiles the shipped default policy (config/safety-rules.yaml) into
 * dist/config/safety-rules.compiled.json, with the SHA-256 of the text it came from. A run whose policy
 * is byte-identical to it (the default, as `sleep-cycle init` copies it) loads the compiled rules
 * instead of importing yaml and parsing 17 KB: about 60 ms of a pre-session dry run. Any other text is
 * parsed and checked as usual. Usage: `node dist/scripts/compile-policy.js` (run by `npm run build`).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { bundledSafetyRulesPath, compiledSafetyRulesPath } from '../pipeline/io/paths.js';
import { compilePolicy } from '../pipeline/safety/policy.js';

const target = compiledSafetyRulesPath();
const compiled = compilePolicy(readFileSync(bundledSafetyRulesPath(), 'utf8'), 'bundled default policy');
mkdirSync(dirname(target), { recursive: true });
writeFileSync(target, `${JSON.stringify(compiled)}\n`);
