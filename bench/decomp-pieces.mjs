// The pieces of the ingest decomposition measured alone (bench/RESULTS.md, "Twelfth session, ingest decomposition"):
// what the bench file holds (distinct messages, lines, error lines, templates), the redactor per distinct line
// (cold, then warm on new lines), and the failure path's per-message work with redaction off (error line,
// signature, FailureLines). Each set is the distinct failure messages of bench/generate.mjs at one seed.
// Usage: node bench/decomp-pieces.mjs <copy>   (a copy built by `node bench/decomp.mjs --keep`: dist/ and bench-root/)
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const copy = resolve(process.argv[2] ?? '');
const piece = process.env.DECOMP_PIECE;
const lib = (path) => import(pathToFileURL(join(copy, 'dist/pipeline', path)).href);
const cpu = (work) => {
  const t = process.cpuUsage();
  work();
  const u = process.cpuUsage(t);
  return Math.round((u.user + u.system) / 1000);
};
/** The distinct failure messages of 300,000 generated lines, as new strings (no memo or string table helps). */
async function messages(seed) {
  const { TelemetryGenerator } = await import(join(copy, 'bench/generate.mjs'));
  const gen = new TelemetryGenerator(seed);
  const set = new Set();
  for (let i = 0; i < 300_000; i += 1) {
    const event = JSON.parse(gen.next());
    if (event.exit_code !== 0 && event.error_message) set.add(event.error_message);
  }
  return [...set].map((text) => (` ${text}`).slice(1));
}
const linesOf = (list) => [...new Set(list.flatMap((text) => text.split('\n')))];

if (piece === undefined) {
  // Each piece in its own process: DECOMP_LEVEL is read when the modules load.
  for (const [name, level] of [['file', undefined], ['redact', undefined], ['messages', '3']]) {
    const env = { ...process.env, DECOMP_PIECE: name };
    if (level === undefined) delete env.DECOMP_LEVEL;
    else env.DECOMP_LEVEL = level;
    const res = spawnSync(process.execPath, [new URL(import.meta.url).pathname, copy], { encoding: 'utf8', env });
    process.stdout.write(res.stdout + res.stderr);
  }
} else if (piece === 'file') {
  const [{ errorLine }, { maskVariables }, { redact }, { loadSecretRuleSet }] = await Promise.all([
    lib('telemetry/error-line.js'), lib('templates/line-mask.js'), lib('safety/redact.js'), lib('safety/secrets-rule-set.js'),
  ]);
  await loadSecretRuleSet();
  const all = [];
  for (const line of readFileSync(join(copy, 'bench-root/logs/telemetry.jsonl'), 'utf8').split('\n')) {
    if (line === '') continue;
    const event = JSON.parse(line);
    if (event.exit_code !== 0 && event.error_message) all.push(event.error_message);
  }
  const distinct = [...new Set(all)];
  const errorLines = [...new Set(distinct.map(errorLine))];
  process.stdout.write(`${JSON.stringify({
    failures_with_a_message: all.length,
    distinct_messages: distinct.length,
    distinct_message_lines: linesOf(distinct).length,
    distinct_error_lines: errorLines.length,
    distinct_masked_error_lines: new Set(errorLines.map((line) => maskVariables(redact(line)))).size,
    messages_redaction_changes: distinct.filter((text) => redact(text) !== text).length,
  })}\n`);
} else if (piece === 'redact') {
  const [{ redactUnmemoised }, { loadSecretRuleSet }] = await Promise.all([lib('safety/redact.js'), lib('safety/secrets-rule-set.js')]);
  await loadSecretRuleSet();
  // Seed 42 first (cold), then the lines of seeds 43-45 not seen before (warm code, and no line memo can answer).
  const seen = new Set();
  const out = [];
  for (const seed of [42, 43, 44, 45]) {
    const fresh = linesOf(await messages(seed)).filter((line) => !seen.has(line));
    for (const line of fresh) seen.add(line);
    const ms = cpu(() => fresh.forEach((line) => redactUnmemoised(line)));
    out.push(`seed ${seed}: ${fresh.length} new lines ${ms} ms (${((ms * 1000) / fresh.length).toFixed(1)} µs a line)`);
  }
  process.stdout.write(`redactor per distinct line (redactUnmemoised): ${out.join('; ')}\n`);
} else {
  const [{ errorLine }, { signatureKey }, { FailureLines }] = await Promise.all([lib('telemetry/error-line.js'), lib('templates/signature.js'), lib('ingest/failure-lines.js')]);
  const sets = [];
  for (const seed of [42, 43, 44]) sets.push(await messages(seed));
  const pieces = [
    ['errorLine', () => errorLine],
    ['signatureKey', () => signatureKey],
    ['FailureLines.of (error line, masking)', () => {
      const lines = new FailureLines();
      return (text) => lines.of(text);
    }],
  ];
  for (const [name, make] of pieces) {
    const times = sets.map((set) => {
      const fn = make();
      const copies = set.map((text) => (` ${text}`).slice(1));
      return cpu(() => copies.forEach((text) => fn(text)));
    });
    process.stdout.write(`${name}, redaction off (DECOMP_LEVEL=3), seeds 42/43/44 (${sets.map((s) => s.length).join('/')} distinct messages): ${times.join(' / ')} ms\n`);
  }
}
