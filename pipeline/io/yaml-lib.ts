import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

let lib: typeof Yaml | undefined;

/**
 * The yaml library, loaded on first use (its import is about 30 ms): a pre-session dry run on a
 * repository with no settings file and the default policy reads no YAML at all. On Node, `import 'yaml'`
 * resolves to the same CommonJS build, so classes such as YAMLMap are the same either way. A plain
 * `require` where the module has one (a CommonJS bundle): there esbuild sees the call and bundles yaml
 * into the command line's bundle, which runs from a code cache, instead of Node reading its forty files.
 */
export function yamlLib(): typeof Yaml {
  // createRequire only here: at the module's top it ran on every hook call, which reads no YAML.
  lib ??= (typeof require === 'function' ? require('yaml') : createRequire(import.meta.url)('yaml')) as typeof Yaml;
  return lib;
}
