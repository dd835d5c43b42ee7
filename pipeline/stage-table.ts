import type { RunContext } from './context.js';

/** One stage as the runner sees it: its name, whether it runs in --dry-run, and the function. */
export interface StageSpec {
  readonly name: string;
  /** Whether the stage runs in --dry-run. Every stage that writes memory, state or git says false. */
  readonly inDryRun: boolean;
  readonly run: (input: never, ctx: RunContext) => Promise<object>;
}

/**
 * A stage table whose types chain: each stage is given what the stages before it produced, so leaving a
 * stage out, putting one before a stage it needs, or giving one the wrong input fails to compile.
 * `D` is what the table produces so far.
 */
export class StageTable<D extends object> {
  private constructor(readonly stages: readonly StageSpec[]) {}

  static start(): StageTable<object> {
    return new StageTable([]);
  }

  /** A stage that runs in every run, dry or not. */
  then<O extends object>(name: string, run: (input: D, ctx: RunContext) => Promise<O>): StageTable<O> {
    return new StageTable<O>([...this.stages, { name, inDryRun: true, run: run as StageSpec['run'] }]);
  }

  /** A stage a dry run skips: what it adds may be missing, so later stages see it as optional. */
  thenUnlessDryRun<O extends D>(name: string, run: (input: D, ctx: RunContext) => Promise<O>): StageTable<D & Partial<Omit<O, keyof D>>> {
    return new StageTable([...this.stages, { name, inDryRun: false, run: run as StageSpec['run'] }]);
  }
}

/** The table's stages with their output type, for the runner. */
export type Produced<T> = T extends StageTable<infer D> ? D : never;
