import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeProgram, programOf } from '../../pipeline/telemetry/program-name.js';
import { simpleCommands } from '../../pipeline/telemetry/shell-words.js';
import { isShellTool, toolFamily } from '../../pipeline/telemetry/tool-family.js';

describe('toolFamily: one family per underlying program', () => {
  it.each([
    ['python x.py', 'python'],
    ['python3 x.py', 'python'],
    ['python3.11 x.py', 'python'],
    ['/usr/bin/python3 -c "import sys"', 'python'],
    ['pip install -r requirements.txt', 'pip'],
    ['pip3 install requests', 'pip'],
    ['python -m pip install requests', 'pip'],
    ['pytest -x tests/', 'pytest'],
    ['python -m pytest -x tests/', 'pytest'],
    ['python3 -u -m pytest tests/test_a.py::test_b', 'pytest'],
    ['py.test tests', 'pytest'],
    ['node server.js', 'node'],
    ['nodejs server.js', 'node'],
    ['npx vitest run test/a.test.ts', 'vitest'],
    ['npx --yes tsc -p .', 'tsc'],
    ['./node_modules/.bin/eslint src', 'eslint'],
    ['npm test', 'npm'],
    ['npm run build', 'npm'],
    ['uv run pytest -q', 'pytest'],
    ['poetry run python manage.py test', 'python'],
    ['bundle exec rspec spec/a_spec.rb', 'rspec'],
    ['gcc-12 -o a a.c', 'gcc'],
    ['go1.21 test ./...', 'go'],
    ['sudo -u deploy env RAILS_ENV=test bundle exec rake', 'rake'],
    ['timeout 30 make test', 'make'],
    ['FOO=1 BAR=2 cargo test', 'cargo'],
  ])('%j → %s', (command, family) => {
    expect(toolFamily('Bash', command)).toBe(family);
  });

  it('in a compound line, the command doing the work: not cd or echo, not a filter after a pipe', () => {
    expect(toolFamily('Bash', 'cd /repo && python -m pytest tests/ 2>&1 | tail -20')).toBe('pytest');
    expect(toolFamily('Bash', 'cd a; pytest')).toBe('pytest');
    expect(toolFamily('Bash', 'source .venv/bin/activate && echo start && python run.py; echo "exit: $?"')).toBe('python');
    expect(toolFamily('Bash', 'grep -rn TODO src | head -5')).toBe('grep');
    expect(toolFamily('Bash', 'for f in tests/*.py; do python "$f"; done')).toBe('python');
    expect(toolFamily('Bash', 'if [ -f Makefile ]; then make; fi')).toBe('make');
    expect(toolFamily('Bash', '(cd web && npm ci) || echo "install failed"')).toBe('npm');
    expect(toolFamily('Bash', "echo 'cd x && pytest' > notes.txt")).toBe('echo');
  });

  it('without a command line, only a shell complaint names the program; any other text leaves the tool', () => {
    // The complaint's every form (the fast path skips texts holding none of its phrases).
    const named: [string, string][] = [
      ['bash: line 1: pytest: command not found', 'pytest'],
      ['zsh: command not found: rg', 'rg'],
      ['sh: 1: yq: not found', 'yq'],
      ['bash: ./run.sh: Permission denied', 'run.sh'],
      ['bash: run.sh: No such file or directory', 'run.sh'],
      ['bash: foo: cannot execute binary file', 'foo'],
      ['Exit code 127\n/usr/bin/bash: line 3: jq: command not found', 'jq'],
    ];
    for (const [message, family] of named) expect(toolFamily('Bash', undefined, message)).toBe(family);
    for (const message of ['Exit code 1\nTypeError: x is not a function', 'cat: x: No such file or directory', 'npm error code 1\nnpm error command failed', 'error: not found anywhere']) {
      expect(toolFamily('Bash', undefined, message)).toBe('Bash');
    }
  });

  it('the command that failed, named by the error text, wins over the last one', () => {
    expect(toolFamily('Bash', 'cd a; pytest -q', 'bash: line 1: pytest: command not found')).toBe('pytest');
    expect(toolFamily('Bash', 'rm -rf build && bash run.sh', 'bash: line 1: foo: command not found')).toBe('foo');
    expect(toolFamily('Bash', 'rm -rf build && bash run.sh', 'bash: run.sh: No such file or directory')).toBe('bash');
    expect(toolFamily('Bash', 'rm -rf build && ./run.sh', 'bash: ./run.sh: Permission denied')).toBe('run.sh');
    expect(toolFamily('Bash', 'python3 fix.py && git diff', "python3: can't open file '/repo/fix.py': [Errno 2] No such file or directory")).toBe('python');
    expect(toolFamily('Bash', 'cat setup.cfg && ls docs', 'cat: setup.cfg: No such file or directory')).toBe('cat');
    expect(toolFamily('Bash', 'git add -A && npm test', "fatal: Unable to create '/repo/.git/index.lock': File exists.")).toBe('git');
    // A traceback names its script: `python setup.py` failed, so `&&` never ran pytest.
    expect(toolFamily('Bash', 'python setup.py develop && pytest tests', 'Traceback (most recent call last):\n  File "/repo/setup.py", line 3, in <module>\nImportError: cannot import name setup')).toBe('python');
    expect(toolFamily('Bash', 'pip install -e . && pytest tests', 'Traceback (most recent call last):\n  File "/repo/tests/conftest.py", line 3, in <module>\nModuleNotFoundError: No module named \'yaml\'')).toBe('pytest');
    expect(toolFamily('Bash', 'make && node dist/x.js', "node:internal/modules/cjs/loader:1228\n  throw err;\n  ^\n\nError: Cannot find module '/repo/dist/x.js'")).toBe('node');
    expect(toolFamily('Bash', 'cd /repo && sh ci.sh', 'sh: 1: tsc: not found')).toBe('tsc');
    expect(toolFamily('Bash', 'if true; then python3 fix.py; fi && make', "python3: can't open file '/repo/fix.py': [Errno 2] No such file or directory")).toBe('python');
    expect(toolFamily('Bash', 'npm install && npm run build', 'npm ERR! code ERESOLVE')).toBe('npm');
  });

  it('a name in the error text counts only for a program the line runs (echoed text cannot pick the family)', () => {
    expect(toolFamily('Bash', 'echo "git: x" && make', 'git: x')).toBe('make');
    expect(toolFamily('Bash', 'make build', 'gcc: error: missing.c: No such file or directory')).toBe('make');
  });

  it("an MCP tool's family is its server, as git is the family of git push and git pull", () => {
    expect(toolFamily('mcp__github__list_pull_requests', '{owner, repo}')).toBe('mcp__github');
    expect(toolFamily('mcp__attio__create-record')).toBe(toolFamily('mcp__attio__update-record'));
    expect(toolFamily('mcp__claude_ai_Gmail__search_threads')).toBe('mcp__claude_ai_Gmail');
    expect(toolFamily('mcp__attio__create-record')).not.toBe(toolFamily('mcp__github__create_issue'));
    // Not an MCP name: no server part, or nothing after it.
    expect(toolFamily('mcp__')).toBe('mcp__');
    expect(toolFamily('mcp__solo')).toBe('mcp__solo');
  });

  it('other tools are their own family; a bare program name (older imports) is normalised', () => {
    expect(toolFamily('Read', 'src/a.ts', 'File does not exist.')).toBe('Read');
    expect(toolFamily('git_push')).toBe('git_push');
    expect(toolFamily('python3.11')).toBe('python');
    expect(toolFamily('Bash')).toBe('Bash');
    expect(toolFamily('Bash', '')).toBe('Bash');
  });

  it('knows shell tools by shape', () => {
    for (const name of ['Bash', 'bash', 'sh', 'zsh', 'shell', 'run_shell_command', 'execute_bash', 'exec_command', 'terminal', 'bash_tool']) expect(isShellTool(name), name).toBe(true);
    for (const name of ['Read', 'git_push', 'mcp__shell__run', 'npm_test', 'bashful']) expect(isShellTool(name), name).toBe(false);
  });

  it('is deterministic, total and bounded on any input (property)', () => {
    const piece = fc.constantFrom('python3', ' ', '&&', '|', ';', "'", '"', '\\', '$(', ')', '<<EOF\n', '\nEOF\n', '#', '\n', 'x', '2>&1', 'cd', 'sudo', '-m', 'pytest', '`');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }).map((parts) => parts.join('')), fc.string({ maxLength: 80 }), (command, error) => {
        const family = toolFamily('Bash', command, error);
        expect(typeof family).toBe('string');
        expect(family.length).toBeGreaterThan(0);
        expect(toolFamily('Bash', command, error)).toBe(family);
      }),
      { numRuns: 3000, seed: 13 },
    );
    const hostile = `${'"$('.repeat(20_000)}${"'".repeat(20_000)}${'<<A\n'.repeat(5_000)}`;
    const started = performance.now();
    toolFamily('Bash', hostile, `${'bash: x: '.repeat(10_000)}command not found`);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('simpleCommands: a shell line as its simple commands', () => {
  it('removes quotes, keeps $(…) whole, drops redirections and their targets', () => {
    expect(simpleCommands(`grep -n "a|b" 'c d' e\\ f 2>&1 >out.txt | head -n 5 && echo "$(date "+%s")" ; ls`)).toEqual([
      { words: ['grep', '-n', 'a|b', 'c d', 'e f'], next: '|' },
      { words: ['head', '-n', '5'], next: '&&' },
      { words: ['echo', '$(date "+%s")'], next: ';' },
      { words: ['ls'], next: null },
    ]);
  });

  it('skips comments and heredoc bodies (a file written with cat <<EOF is data, not commands)', () => {
    const line = "# write the script\ncat <<'EOF' > run.py\nimport os; os.system('rm -rf /')\nEOF\npython run.py # run it\ncat <<-END\n\tmake all\n\tEND\nls";
    expect(simpleCommands(line).map((command) => command.words)).toEqual([['cat'], ['python', 'run.py'], ['cat'], ['ls']]);
  });

  it('splits at newlines, subshells and background jobs', () => {
    expect(simpleCommands('(cd a && make) &\nwait').map((c) => [c.words[0], c.next])).toEqual([['cd', '&&'], ['make', ')'], ['wait', null]]);
  });
});

describe('programOf and normalizeProgram', () => {
  it.each([
    [['env', '-i', 'A=1', 'python3', 'x.py'], 'python'],
    [['nice', '-n', '10', 'make'], 'make'],
    [['xargs', '-I', '{}', 'rm', '{}'], 'rm'],
    [['conda', 'run', '-n', 'py311', 'pytest'], 'pytest'],
    [['A=1'], null],
    [['sudo'], null],
  ])('%j → %s', (words, program) => {
    expect(programOf(words)).toBe(program);
  });

  it('drops paths and version suffixes, keeps names that merely end in digits', () => {
    expect(['python3.12', 'pip3', 'node18', 'clang++-15', 'nodejs', 'PYTHON.EXE', 'py'].map(normalizeProgram)).toEqual(['python', 'pip', 'node', 'clang++', 'node', 'python', 'python']);
    expect(['base64', 'bzip2', 'sha256sum', 'x264', 'lz4', 'k3s'].map(normalizeProgram)).toEqual(['base64', 'bzip2', 'sha256sum', 'x264', 'lz4', 'k3s']);
  });
});

describe('isShellTool answers from the name alone, for every shape of a shell tool name', () => {
  // The language of its pattern, spelt out: the check before the pattern must let every one of them through.
  const runLike = ['run', 'exec', 'execute'].flatMap((verb) => ['', '_', '-'].flatMap((sep) => ['', 'shell', 'shell_', 'shell-'].flatMap((mid) => ['bash', 'command', 'cmd', 'shell'].map((end) => `${verb}${sep}${mid}${end}`))));
  const toolLike = ['bash', 'shell'].flatMap((head) => ['', '_', '-'].flatMap((sep) => ['tool', 'command', 'exec'].map((end) => `${head}${sep}${end}`)));
  const names = [...['', 'ba', 'z', 'da', 'k', 'c', 'tc', 'fi'].map((p) => `${p}sh`), 'shell', 'terminal', 'powershell', 'pwsh', ...runLike, ...toolLike];

  it.each(['lower', 'upper', 'capitalised'] as const)('takes each name of a shell tool, %s', (how) => {
    const cased = names.map((n) => (how === 'lower' ? n : how === 'upper' ? n.toUpperCase() : n[0]!.toUpperCase() + n.slice(1)));
    expect(cased.filter((n) => !isShellTool(n))).toEqual([]);
  });

  it('refuses the names that are not a shell\'s', () => {
    for (const name of ['Read', 'Edit', 'WebFetch', 'Glob', 'Grep', 'Task', 'mcp__github__list_prs', 'git_push', 'shellcheck', 'bash2', 'run_tests']) expect(isShellTool(name), name).toBe(false);
  });
});
