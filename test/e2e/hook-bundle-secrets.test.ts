import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, makeDir, runCliProcess } from '../helpers/repo.js';
import { childEnv } from '../helpers/temp.js';

/**
 * The built hook (dist/pipeline/cli/hook-main.cjs, run from its code cache) redacts with the built-in
 * secret shapes only: it never loads the secretlint preset. Nothing it writes may hold a secret, and the
 * night (whose ingest checks every field again with the full detectors) must not let one through either.
 * The secrets are built at run time (none is a real credential).
 */
const SECRETS = {
  github: `ghp_${'Zq7Lm2Xc9V'.repeat(3)}k4Pw9T`,
  slack: ['xoxb', '2849173650', '9917364520', 'Qm4Zr8Xc2Vb7Nn1Kd5Ls3Hj'].join('-'),
  aws: `aws_secret_access_key=${'wJalrXUtnFEMI/K7MDENG/bPxRfiCY'}${'Q9r2Zk4Tq8Lm'}`,
  url: `https://deploy:${'Hq8zT2mW9vLp'}@registry.internal.example/pkg`,
};

function hook(dir: string, payload: Record<string, unknown>): void {
  const run = spawnSync(process.execPath, [CLI, 'hook', 'claude-code'], {
    cwd: dir, input: JSON.stringify(payload), encoding: 'utf8', env: { ...childEnv(dir), CLAUDE_PROJECT_DIR: dir },
  });
  expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
}

/** Every file of the project but git's own, with the parts of it that hold one of the secrets. */
function leaks(dir: string): string[] {
  const found: string[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== '.git') walk(path);
        continue;
      }
      const text = readFileSync(path, 'latin1');
      for (const [kind, secret] of Object.entries(SECRETS)) {
        // The value part of each secret, as a secret scanner would look for it.
        const value = secret.includes('=') ? secret.split('=')[1]! : secret.includes('@') ? secret.split(':')[2]!.split('@')[0]! : secret;
        if (text.includes(value)) found.push(`${relative(dir, path)}: ${kind}`);
      }
    }
  };
  walk(dir);
  return found;
}

describe('the built hook and secrets', () => {
  it('writes no secret from an error or a command, and the night after writes none either', () => {
    const dir = makeDir({ 'MEMORY.md': '# Memory\n\n## Derived Rules\n' }, { git: true });
    for (let i = 1; i <= 3; i++) {
      const call = { session_id: `s${i}`, transcript_path: '/dev/null', cwd: dir, tool_name: 'Bash', tool_use_id: `toolu_${i}` };
      const command = `curl -H "Authorization: Bearer ${SECRETS.github}" ${SECRETS.url} && SLACK=${SECRETS.slack} ./notify`;
      hook(dir, { ...call, hook_event_name: 'PreToolUse', tool_input: { command } });
      hook(dir, {
        ...call, hook_event_name: 'PostToolUseFailure', tool_input: { command },
        error: `Exit code 1\nerror: upload to ${SECRETS.url} refused for token ${SECRETS.github}\n${SECRETS.aws}\nslack said no to ${SECRETS.slack}`,
      });
    }
    const events = readFileSync(join(dir, 'logs/telemetry.jsonl'), 'utf8').trim().split('\n');
    expect(events).toHaveLength(3);
    expect(leaks(dir)).toEqual([]);
    const night = runCliProcess(dir, ['run', '--no-commit', '--json']);
    expect(night.code).toBe(0);
    expect(night.json.data.lines.valid).toBe(3);
    expect(leaks(dir)).toEqual([]);
    expect(`${night.stdout}${night.stderr}`).not.toContain(SECRETS.github);
  });
});
