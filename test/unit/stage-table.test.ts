import { resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { LIFECYCLE_STAGES, STAGES } from '../../pipeline/run.js';

const ROOT = resolve(import.meta.dirname, '../..');
const PROBE = resolve(ROOT, 'pipeline/stage-table-probe.ts');

const IMPORTS = `
import { StageTable } from './stage-table.js';
import { load } from './stages/load.js';
import { reconcile } from './stages/reconcile.js';
import { ingest } from './stages/ingest.js';
import { gate } from './stages/gate.js';
import { synthesize } from './stages/synthesize.js';
import { validate } from './stages/validate.js';
import { deduplicate } from './stages/deduplicate.js';
import { decay } from './stages/decay.js';
import { plan } from './stages/plan.js';
import { report } from './stages/report.js';
import { writeReport } from './stages/write-report.js';
import { apply } from './stages/apply.js';
import { commit } from './stages/commit.js';
`;

const NIGHT = ['load', 'reconcile', 'ingest', 'gate', 'synthesize', 'validate', 'deduplicate', 'decay', 'plan', 'report', 'writeReport', 'apply', 'commit'];

function table(stages: string[]): string {
  const dryOnly = new Set(['apply', 'commit']);
  return `${IMPORTS}\nexport const T = StageTable.start()${stages.map((s) => `\n  .${dryOnly.has(s) ? 'thenUnlessDryRun' : 'then'}('${s}', ${s})`).join('')};\n`;
}

let previous: ts.Program | undefined;

/** Type-checks one table in the project's settings; the errors tsc reports for it. */
function compile(source: string): string[] {
  const config = ts.readConfigFile(resolve(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  const host = ts.createCompilerHost({ ...options, noEmit: true });
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, ...rest) => (resolve(name) === PROBE ? ts.createSourceFile(name, source, version) : read(name, version, ...rest));
  host.fileExists = ((exists) => (name: string) => resolve(name) === PROBE || exists(name))(host.fileExists.bind(host));
  const program = ts.createProgram([PROBE], { ...options, noEmit: true }, host, previous);
  previous = program;
  return ts.getPreEmitDiagnostics(program, program.getSourceFile(PROBE)).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('the stage table', () => {
  it('runs the stages in the order of the picture', () => {
    expect(STAGES.map((s) => s.name)).toEqual(['load', 'reconcile', 'ingest', 'gate', 'synthesize', 'validate', 'deduplicate', 'decay', 'plan', 'report', 'write-report', 'apply', 'commit']);
    expect(STAGES.filter((s) => !s.inDryRun).map((s) => s.name)).toEqual(['apply', 'commit']);
    expect(LIFECYCLE_STAGES.map((s) => s.name)).toEqual(['load', 'reconcile', 'quiet', 'decay', 'plan', 'report', 'write-report', 'apply', 'commit']);
  });

  it('compiles in run order, and fails to compile with a stage left out, two swapped, or the wrong input', { timeout: 120_000 }, () => {
    expect(compile(table(NIGHT))).toEqual([]);
    const without = (...names: string[]) => NIGHT.filter((s) => !names.includes(s));
    expect(compile(table(without('gate'))).length).toBeGreaterThan(0);
    expect(compile(table(without('reconcile', 'gate'))).length).toBeGreaterThan(0);
    const swapped = [...NIGHT];
    [swapped[3], swapped[4]] = [swapped[4]!, swapped[3]!]; // synthesize before gate
    expect(compile(table(swapped)).length).toBeGreaterThan(0);
    // A stage given something that is not what it needs: plan straight after load.
    expect(compile(table(['load', 'plan'])).length).toBeGreaterThan(0);
  });
});
