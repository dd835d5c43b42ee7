import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/in-process.js';
import { countColour, decodePng } from '../helpers/png.js';
import { event, lines, makeDir, read } from '../helpers/repo.js';
import { tempDir } from '../helpers/temp.js';

const DAY = 86_400_000;
const START = Date.parse('2026-11-01T00:00:00Z');
const at = (night: number, minute = 0) => new Date(START + night * DAY + 10 * 3_600_000 + minute * 60_000).toISOString();

/** git_push fails 9, 6, 4, 2, 1 times on nights 0–4 (falling), Read 3 times on night 0 only; git_push succeeds too. */
const FAILS = [9, 6, 4, 2, 1];
function night(n: number): string {
  const out: string[] = [];
  for (let i = 0; i < FAILS[n]!; i++) {
    out.push(event({ tool_name: 'git_push', exit_code: 1, error_category: 'git_error', error_message: "fatal: Unable to create '/repo/.git/index.lock': File exists.", timestamp: at(n, i), session_id: `s-${n}-${i % 3}` }));
  }
  for (let i = 0; i < 5; i++) out.push(event({ tool_name: 'git_push', exit_code: 0, timestamp: at(n, 30 + i), session_id: `s-${n}-0` }));
  if (n === 0) {
    for (let i = 0; i < 3; i++) out.push(event({ tool_name: 'Read', exit_code: 1, error_category: 'not_found', error_message: 'File does not exist. <script>alert(1)</script>\u001b[31m', timestamp: at(n, 40 + i), session_id: `r-${i}` }));
  }
  return lines(...out);
}

/** Five nights in a real repository: the state the trend pages read. */
async function fiveNights(): Promise<string> {
  const dir = makeDir({ 'MEMORY.md': '# M\n\n## Derived Rules\n', 'logs/telemetry.jsonl': '', 'config/sleep-cycle.yaml': 'effectiveness_min_days: 2\n' }, { git: true });
  for (let n = 0; n < FAILS.length; n++) {
    appendFileSync(join(dir, 'logs/telemetry.jsonl'), night(n));
    const run = await cli(dir, ['run'], at(n, 59 + 60));
    expect(run.code, JSON.stringify(run.json.error)).toBe(0);
  }
  return dir;
}

function chromium(): string | null {
  for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
    const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
    if (found.status === 0 && found.stdout.trim() !== '') return found.stdout.trim();
  }
  return null;
}

const CHROMIUM = chromium();
if (!CHROMIUM) console.warn('NOTICE: no chromium on this machine: the screenshot test of `report --html` is skipped (.ci/run installs Debian\'s chromium).');

describe('trends over nights', () => {
  // One five-night repository for the page tests (each night is a real run); the first test makes its own.
  let shared: string;
  beforeAll(async () => {
    shared = await fiveNights();
  }, 120_000);

  it('report: failures per night, falling, and the rules each run added; the nightly report carries the trend table', async () => {
    const dir = await fiveNights();
    const report = await cli(dir, ['report']);
    expect(report.code).toBe(0);
    expect(report.json.data.nights.map((n: any) => n.failures)).toEqual([12, 6, 4, 2, 1]);
    expect(report.json.data.runs.reduce((n: number, r: any) => n + r.added, 0)).toBe(2);
    const pushCluster = report.json.data.clusters.find((c: any) => c.label.startsWith('git_push'));
    expect(pushCluster.counts).toEqual([9, 6, 4, 2, 1]);
    // The pull request's body (the report) says where failures are going.
    const body = read(dir, 'proposed_memory_updates.md');
    expect(body).toContain('## Trend');
    expect(body).toContain('falling (12 → 1)');
    // A night with nothing new records nothing (no commit for an empty night).
    const quiet = await cli(dir, ['run'], at(6));
    expect(quiet.json.data.commit).toBeNull();
    expect((await cli(dir, ['report'])).json.data.nights).toHaveLength(5);
  }, 120_000);

  it('report --html writes one self-contained page; log text in it is escaped', async () => {
    const dir = shared;
    const out = join(tempDir(), 'trends.html');
    const run = await cli(dir, ['report', '--html', out]);
    expect(run.code).toBe(0);
    const html = readFileSync(out, 'utf8');
    expect(html.match(/<svg data-chart="(failures|lifecycle|effectiveness)"/g)).toHaveLength(3);
    expect(html).not.toMatch(/<script|\bsrc=|\bhref=|https?:\/\//);
    expect(html).toContain('&lt;script&gt;');
    expect(html).not.toContain('\u001b');
  });

  it.skipIf(!CHROMIUM)('the page renders in headless Chromium: every plot draws (checked on a screenshot)', async () => {
    const dir = shared;
    const folder = tempDir();
    const page = join(folder, 'trends.html');
    const shot = join(folder, 'trends.png');
    await cli(dir, ['report', '--html', page]);
    execFileSync(CHROMIUM!, ['--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars', `--user-data-dir=${join(folder, 'profile')}`,
      `--screenshot=${shot}`, '--window-size=800,1100', `file://${page}`], { stdio: 'pipe', timeout: 60_000 });
    const png = decodePng(readFileSync(shot));
    expect(png.width).toBe(800);
    // Failures per night: the total's line (#333333) and the heaviest cluster's (#1f77b4).
    expect(countColour(png, '#333333')).toBeGreaterThan(300);
    expect(countColour(png, '#1f77b4')).toBeGreaterThan(300);
    // Rules added per run (green bars) and each rule before (red) and after (green) adoption.
    expect(countColour(png, '#2ca02c')).toBeGreaterThan(100);
    expect(countColour(png, '#d62728')).toBeGreaterThan(100);
  }, 90_000);
});
