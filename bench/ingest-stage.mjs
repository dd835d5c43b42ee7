// The ingest stage as the bench runs it, for bench/child.mjs (the `ours-ingest` row) and bench/ingest-sha.mjs
// (same-output checks): the built modules of `repo`, and a dry-run context on `root` with no git, no model and
// a silent logger. `workerMinMb` sets when a night is split for a worker thread (undefined: the settings' default).
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export async function loadIngestStage(repo, { root, now, workerMinMb, worker = true }) {
  const lib = (path) => import(pathToFileURL(resolve(repo, 'dist/pipeline', path)).href);
  const [{ ingest }, { defaultSettings }, { nodeFs }, { emptyState }, { workerRangeFolder }] = await Promise.all([
    lib('stages/ingest.js'), lib('settings/schema.js'), lib('io/fs.js'), lib('memory/state.js'), lib('ingest/range-folder.js'),
  ]);
  const settings = defaultSettings();
  if (workerMinMb !== undefined) settings.ingest_worker_min_mb = workerMinMb;
  const rangeFolder = worker ? workerRangeFolder() : null;
  const ctx = {
    root,
    now,
    runId: 'run-bench',
    settings,
    options: { dryRun: true, commit: false, requireGit: false },
    fs: nodeFs,
    git: null,
    synthesizer: null,
    logger: { info() {}, warn() {} },
    startupNotices: [],
    ...(rangeFolder ? { rangeFolder } : {}),
  };
  return { ingest, ctx, emptyInput: () => ({ state: emptyState(), notices: [] }) };
}
