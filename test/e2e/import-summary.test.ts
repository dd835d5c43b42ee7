import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importCommandSpec } from '../../pipeline/cli/import-command.js';
import { runCommandInProcess } from '../helpers/command.js';
import { makeDir, PACKAGE_ROOT } from '../helpers/repo.js';

const act = (command: string) => ({ role: 'assistant', content: `THOUGHT: try.\n\n\`\`\`bash\n${command}\n\`\`\`` });
const obs = (content: string) => ({ role: 'user', content });

async function importText(dir: string, format: string, source: string) {
  return runCommandInProcess(dir, (deps) => importCommandSpec.action([format, source], {}, deps));
}

describe('the import summary says what the appended events are', () => {
  it('counts format errors apart from calls among the events appended, and only what was appended', async () => {
    const dir = makeDir({});
    writeFileSync(join(dir, 'demo__demo-1.traj.json'), JSON.stringify({
      instance_id: 'demo__demo-1',
      messages: [
        { role: 'user', content: 'task' },
        act('python run.py'), obs('<returncode>1</returncode>\n<output>\nValueError: x\n</output>'),
        act('ls'), obs('Please always provide EXACTLY ONE action in triple backticks, found 2 actions.'),
        act('ls'), obs('<returncode>0</returncode>\n<output>\na\n</output>'),
      ],
    }));
    const first = await importText(dir, 'mini-swe-agent', 'demo__demo-1.traj.json');
    expect(first.code).toBe(0);
    expect(first.stdout.split('\n')[1]).toBe(
      '  appended 3 events to logs/telemetry.jsonl (2 calls and 1 format error: agent replies without exactly one action, each logged as tool format_error); 0 already imported',
    );
    const again = await importText(dir, 'mini-swe-agent', 'demo__demo-1.traj.json');
    expect(again.stdout).toContain('  appended 0 events to logs/telemetry.jsonl; 3 already imported\n');
  });

  const data = join(PACKAGE_ROOT, '..', 'shared', 'data', 'mini-swe-agent-gemini3-dev');
  it.skipIf(!existsSync(data))('on the real mini-swe-agent data: the events beyond the 1,051 calls are its 39 format errors', async () => {
    const run = await importText(makeDir({}), 'mini-swe-agent', data);
    expect(run.stdout).toContain('appended 1090 events to logs/telemetry.jsonl (1051 calls and 39 format errors: agent replies without exactly one action');
  });
});
