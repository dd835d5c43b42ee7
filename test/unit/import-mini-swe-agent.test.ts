import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkEvent, type TelemetryEvent } from '../../pipeline/telemetry/event.js';
import { commandOutput, readMiniSweAgentCalls, TIMEOUT_EXIT_CODE } from '../../pipeline/telemetry/import-mini-swe-agent.js';
import { countItem, emptyCounts, listSourceFiles, type ImportItem, type SourceCounts } from '../../pipeline/telemetry/import-source.js';
import { toolFamily } from '../../pipeline/telemetry/tool-family.js';
import { PACKAGE_ROOT } from '../helpers/repo.js';
import { tempDir } from '../helpers/temp.js';

const TRAJS = join(PACKAGE_ROOT, '..', 'shared', 'data', 'mini-swe-agent-gemini3-dev', 'trajs');

async function collect(file: string): Promise<{ items: ImportItem[]; counts: SourceCounts; events: TelemetryEvent[] }> {
  const items: ImportItem[] = [];
  const counts = emptyCounts();
  for await (const item of readMiniSweAgentCalls(file)) {
    items.push(item);
    countItem(counts, item);
  }
  return { items, counts, events: items.flatMap((item) => (item.kind === 'skipped' ? [] : [item.event])) };
}

/** SOURCES.md 2b, per file: bash actions with a <returncode> / non-zero return codes / format-error turns. */
const SOURCES_2B: Record<string, [number, number, number]> = {
  'django__django-16901': [34, 4, 1], 'scikit-learn__scikit-learn-14496': [27, 0, 1], 'django__django-13513': [35, 2, 2],
  'psf__requests-2317': [30, 0, 1], 'django__django-15315': [40, 3, 3], 'matplotlib__matplotlib-24627': [43, 1, 0],
  'django__django-14122': [37, 2, 1], 'django__django-13012': [26, 2, 1], 'sphinx-doc__sphinx-11510': [38, 1, 3],
  'sphinx-doc__sphinx-11445': [30, 5, 6], 'astropy__astropy-13453': [29, 1, 0], 'sympy__sympy-12419': [43, 1, 0],
  'astropy__astropy-14182': [24, 0, 0], 'matplotlib__matplotlib-25479': [33, 1, 0], 'django__django-11734': [37, 4, 4],
  'sympy__sympy-24443': [49, 6, 2], 'django__django-14752': [30, 3, 1], 'django__django-17084': [33, 2, 0],
  'django__django-14170': [38, 3, 0], 'scikit-learn__scikit-learn-12973': [36, 3, 1], 'django__django-12419': [26, 0, 0],
  'django__django-15930': [34, 2, 2], 'scikit-learn__scikit-learn-14087': [36, 1, 0], 'sphinx-doc__sphinx-9602': [35, 2, 1],
  'psf__requests-5414': [46, 10, 3], 'pydata__xarray-4075': [31, 0, 1], 'django__django-12406': [50, 6, 3],
  'django__django-15127': [16, 1, 1], 'matplotlib__matplotlib-13989': [28, 3, 0], 'pytest-dev__pytest-5262': [25, 1, 1],
};

describe.skipIf(!existsSync(TRAJS))('mini-swe-agent importer on the 30 real trajectories (SOURCES.md 2b)', () => {
  /*
   * How our counts reconcile with SOURCES.md (1019 bash actions, 70 non-zero exits, 39 format errors):
   * SOURCES counts the actions whose observation is a <returncode>. Every assistant turn becomes one
   * item here, so each trajectory also yields its final submission (`echo COMPLETE_TASK_AND_SUBMIT_…`:
   * the observation is the diff; it ran, exit 0) and, in two trajectories, a command killed by the
   * timeout (no return code: exit 124, category `timeout`). Hence 1019 + 30 + 2 = 1051 calls and
   * 70 + 2 = 72 failures, 18 of them benign (exit 1, empty output, a grep as the last command).
   */
  it('reconciles per file and in total with SOURCES.md', async () => {
    const files = await listSourceFiles(TRAJS, (name) => name.endsWith('.traj.json'));
    expect(files).toHaveLength(30);
    const total = emptyCounts();
    const histogram: Record<number, number> = {};
    for (const file of files) {
      const { items, counts, events } = await collect(file);
      items.forEach((item) => countItem(total, item));
      const instance = file.slice(TRAJS.length + 1).replace('.traj.json', '');
      const [actions, nonZero, formatErrors] = SOURCES_2B[instance]!;
      const timeouts = events.filter((e) => e.exit_code === TIMEOUT_EXIT_CODE && e.error_category === 'timeout').length;
      const last = items.at(-1);
      const submissions = last?.kind === 'call' && /^echo COMPLETE_TASK/.test(last.event.input_summary ?? '') && last.event.exit_code === 0 ? 1 : 0;
      expect({ instance, calls: counts.calls, failures: counts.failures, format_errors: counts.format_errors, submissions }).toEqual({
        instance, calls: actions + submissions + timeouts, failures: nonZero + timeouts, format_errors: formatErrors, submissions: 1,
      });
      for (const event of events) {
        expect(checkEvent(event)).toBeNull();
        expect(event.session_id).toBe(instance);
        if (event.tool_name !== 'format_error' && event.exit_code !== TIMEOUT_EXIT_CODE) histogram[event.exit_code] = (histogram[event.exit_code] ?? 0) + 1;
      }
    }
    expect(total).toEqual({ calls: 1051, failures: 72, benign: 18, excluded_cancelled: 0, format_errors: 39, unpaired: 0, invalid: 0 });
    // SOURCES.md: [[0, 949], [1, 65], [2, 4], [127, 1]] over the 1019 actions; plus the 30 submissions at 0.
    expect(histogram).toEqual({ 0: 949 + 30, 1: 65, 2: 4, 127: 1 });
  });

  it('marks only grep misses as benign: exit 1, empty output, a search as the last command of the pipe', async () => {
    const files = await listSourceFiles(TRAJS, (name) => name.endsWith('.traj.json'));
    const benign: TelemetryEvent[] = [];
    for (const file of files) benign.push(...(await collect(file)).events.filter((e) => e.error_category === 'benign'));
    expect(benign).toHaveLength(18);
    expect(new Set(benign.map((e) => e.tool_name))).toEqual(new Set(['bash']));
    // Families name the program doing the work: `pip list | grep x` is pip's (a filter after it is not).
    expect(new Set(benign.map((e) => toolFamily(e.tool_name, e.input_summary, e.error_message)))).toEqual(new Set(['grep', 'find', 'pip']));
    expect(benign.every((e) => e.exit_code === 1 && e.error_message === undefined)).toBe(true);
  });

  it('names the tool `bash` and keeps the command as input_summary: the family is the program that ran, not the first word', async () => {
    const files = await listSourceFiles(TRAJS, (name) => name.endsWith('.traj.json'));
    const failures: TelemetryEvent[] = [];
    for (const file of files) failures.push(...(await collect(file)).events.filter((e) => e.exit_code !== 0 && e.tool_name !== 'format_error'));
    expect(new Set(failures.map((e) => e.tool_name))).toEqual(new Set(['bash']));
    for (const event of failures) expect(event.input_summary!.length).toBeLessThanOrEqual(200);
    const families: Record<string, number> = {};
    for (const e of failures) {
      const family = toolFamily(e.tool_name, e.input_summary, e.error_message);
      families[family] = (families[family] ?? 0) + 1;
    }
    // python/python3//usr/bin/python3 are one family; `/usr/bin/python3 -m pytest` and `pytest` another.
    expect(families).toMatchObject({ python: 32, pytest: 12, grep: 15, bash: 5 });
    expect(Object.keys(families)).not.toContain('python3');
    expect(Object.keys(families)).not.toContain('cd');
  });

  it('turns each format-error turn into its own format_error event', async () => {
    const { events } = await collect(join(TRAJS, 'sphinx-doc__sphinx-11445.traj.json'));
    const formatErrors = events.filter((e) => e.tool_name === 'format_error');
    expect(formatErrors).toHaveLength(6);
    expect(formatErrors[0]).toMatchObject({ exit_code: 1, error_category: 'format_error', agent: 'mini-swe-agent' });
    expect(formatErrors[0]!.error_message).toMatch(/^Please always provide EXACTLY ONE action in triple backticks, found \d actions\.$/);
  });
});

function trajectory(messages: unknown[], instance = 'demo__demo-1'): string {
  const path = join(tempDir('msa-import-'), `${instance}.traj.json`);
  writeFileSync(path, JSON.stringify({ info: { exit_status: 'Submitted' }, messages, trajectory_format: 'mini-swe-agent-1', instance_id: instance }));
  return path;
}
const act = (command: string, created?: number) => ({ role: 'assistant', content: `THOUGHT: try.\n\n\`\`\`bash\n${command}\n\`\`\``, extra: created === undefined ? {} : { response: { created } } });
const obs = (content: string) => ({ role: 'user', content });

describe('mini-swe-agent importer on synthetic trajectories', () => {
  it('converts actions: exit code, command, output head and tail, timestamps, keys per step', async () => {
    const file = trajectory([
      { role: 'system', content: 'You are…' },
      { role: 'user', content: '<pr_description>…' },
      act('python reproduce.py', 1763508908),
      obs('<returncode>1</returncode>\n<warning>\nThe output of your last command was too long.\n</warning><output_head>\nTraceback (most recent call last):\n</output_head>\n<elided_chars>\n9000 characters elided\n</elided_chars>\n<output_tail>\nAssertionError: wrong\n</output_tail>'),
      act('grep -n "needle" src/a.py'),
      obs('<returncode>1</returncode>\n<output>\n</output>'),
      act('ls'),
      obs('Please always provide EXACTLY ONE action in triple backticks, found 2 actions.\n\nPlease format…'),
      act('pytest tests', 1763508990),
      obs('The last command <command>pytest tests</command> timed out and has been killed.\nThe output of the command was:\n <output>\ncollected 3 items\n</output>'),
      act('echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached', 1763509000),
      obs('diff --git a/x b/x'),
      act('ls -la', 1763509001),
    ]);
    const { items, counts } = await collect(file);
    expect(counts).toEqual({ calls: 4, failures: 3, benign: 1, excluded_cancelled: 0, format_errors: 1, unpaired: 1, invalid: 0 });
    const keyed = items.filter((i): i is Exclude<ImportItem, { kind: 'skipped' }> => i.kind !== 'skipped');
    expect(keyed.map((i) => i.key)).toEqual(['demo__demo-1:1', 'demo__demo-1:2', 'demo__demo-1:3', 'demo__demo-1:4', 'demo__demo-1:5']);
    const [python, grep, format, pytest, submit] = keyed.map((i) => i.event);
    expect(python).toMatchObject({ timestamp: '2025-11-18T23:35:08.000Z', tool_name: 'bash', input_summary: 'python reproduce.py', exit_code: 1, error_category: 'test_failure', session_id: 'demo__demo-1', agent: 'mini-swe-agent', duration_ms: 0 });
    expect(python!.error_message).toBe('Traceback (most recent call last):\n\n[… 9000 characters elided …]\nAssertionError: wrong');
    // No `created` on this turn: the previous turn's time + 1 ms.
    expect(grep).toMatchObject({ timestamp: '2025-11-18T23:35:08.001Z', tool_name: 'bash', input_summary: 'grep -n "needle" src/a.py', exit_code: 1, error_category: 'benign' });
    expect(format).toMatchObject({ timestamp: '2025-11-18T23:35:08.002Z', tool_name: 'format_error', exit_code: 1, error_category: 'format_error', error_message: 'Please always provide EXACTLY ONE action in triple backticks, found 2 actions.' });
    expect(pytest).toMatchObject({ tool_name: 'bash', input_summary: 'pytest tests', exit_code: TIMEOUT_EXIT_CODE, error_category: 'timeout' });
    expect(submit).toMatchObject({ tool_name: 'bash', input_summary: 'echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached', exit_code: 0 });
    expect(submit).not.toHaveProperty('error_category');
  });

  it('falls back to the file name without an instance_id, and counts a file that is not a trajectory', async () => {
    const dir = tempDir('msa-import-');
    const path = join(dir, 'task-7.traj.json');
    writeFileSync(path, JSON.stringify({ messages: [act('ls', 1), obs('<returncode>0</returncode>\n<output>\na\n</output>')] }));
    expect((await collect(path)).events[0]).toMatchObject({ session_id: 'task-7', tool_name: 'bash', input_summary: 'ls', exit_code: 0, timestamp: '1970-01-01T00:00:01.000Z' });
    const broken = join(dir, 'broken.traj.json');
    writeFileSync(broken, '{"messages": [');
    expect((await collect(broken)).counts).toMatchObject({ calls: 0, invalid: 1 });
  });

  it('reads the output of each observation shape', () => {
    expect(commandOutput('<returncode>0</returncode>\n<output>\na </output> b\n</output>')).toBe('a </output> b\n');
    expect(commandOutput('<returncode>1</returncode>\n<output_head>\nh\n</output_head>\n<output_tail>\nt\n</output_tail>')).toBe('h\n\n[… output elided …]\nt\n');
    expect(commandOutput('<returncode>1</returncode>')).toBe('');
  });
});
