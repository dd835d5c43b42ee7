import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { childEnv, tempDir } from '../helpers/temp.js';

/**
 * The hook prints with plain writes of descriptor 1 (io/stdout.ts), not process.stdout: the whole text
 * arrives, through a pipe (larger than its buffer, so writes are partial and wait for the reader), into
 * and into a file.
 */
const STDOUT = resolve('dist/pipeline/io/stdout.js');
const script = (size: number) => `import { writeProcessStdout } from ${JSON.stringify(`file://${STDOUT}`)}; writeProcessStdout('é'.repeat(${size}) + 'end\\n');`;
const expected = (size: number) => `${'é'.repeat(size)}end\n`;

describe('writeProcessStdout', () => {
  it('writes every byte through a pipe larger than its buffer, and into a file', () => {
    const piped = spawnSync(process.execPath, ['--input-type=module', '-e', script(200_000)], { encoding: 'utf8', env: childEnv(process.cwd()) });
    expect(piped.status).toBe(0);
    expect(piped.stdout).toBe(expected(200_000));
    const file = join(tempDir('hook-stdout-'), 'out.txt');
    const run = spawnSync('sh', ['-c', `"${process.execPath}" --input-type=module -e "$SCRIPT" > "${file}"`], { env: { ...childEnv(process.cwd()), SCRIPT: script(1000) } });
    expect(run.status).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(expected(1000));
  });
});
