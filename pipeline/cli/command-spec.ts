import type { Option } from 'commander';
import type { CliDeps } from './context-from-options.js';

export type Action = (args: string[], options: Record<string, unknown>, deps: CliDeps) => Promise<number>;

/** One row of the command table: what commander registers, and the small file that does the work. */
export interface CommandSpec {
  /** Name with its arguments, as commander reads it: `explain <id>`. */
  name: string;
  description: string;
  options: Option[];
  action: Action;
}
