import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { classifyError, errorLine } from '../../pipeline/telemetry/classify.js';
import { commandOutput } from '../../pipeline/telemetry/import-mini-swe-agent.js';
import { testVerdict } from '../../pipeline/telemetry/test-verdict.js';

const DATA = join(import.meta.dirname, '..', '..', '..', 'shared', 'data');
const classify = (message: string, command?: string) => classifyError({ toolName: 'Bash', exitCode: 1, message }, [], command);

// Real-shaped outputs, written for these tests (the real ones hold user paths).
const PYTEST_RUN = `============================= test session starts ==============================
platform linux -- Python 3.11.6, pytest-8.3.2, pluggy-1.5.0
rootdir: /repo
collected 5 items

tests/test_ports.py ..F..                                                [100%]

=================================== FAILURES ===================================
______________________________ test_parse_config _______________________________

    def test_parse_config():
>       assert parse("port=99999") == 99999
E       AssertionError: assert None == 99999
E        +  where None = parse('port=99999')

tests/test_ports.py:21: AssertionError
=========================== short test summary info ============================
FAILED tests/test_ports.py::test_parse_config - AssertionError: assert None == 99999
========================= 1 failed, 4 passed in 0.12s ==========================`;

const FIXTURE_ERROR = `============================= test session starts ==============================
collected 1 item

tests/test_client.py E                                                   [100%]

==================================== ERRORS ====================================
______________________ ERROR at setup of test_client_close _____________________
file /repo/tests/test_client.py, line 12
  def test_client_close(mock_obj):
E       fixture 'mock_obj' not found
>       available fixtures: cache, capfd, capfdbinary, caplog, capsys, capsysbinary, monkeypatch, pytestconfig, record_property, tmp_path
>       use 'pytest --fixtures [testpath]' for help on them.

/repo/tests/test_client.py:12
=========================== short test summary info ============================
ERROR tests/test_client.py::test_client_close
=============================== 1 error in 0.02s ===============================`;

const traceback = (last: string) => `Traceback (most recent call last):
  File "/repo/manage.py", line 22, in <module>
    main()
  File "/repo/app/run.py", line 8, in main
    value = next(items)
           ^^^^^^^^^^^
${last}`;

describe('errorLine picks the line that states the error', () => {
  it.each([
    // A test runner's verdict outranks the exceptions inside its failing tests, and keeps only the count
    // that says what failed: the rest of the tally and the time change with every run.
    ['pytest: the verdict, not the reason of one failing test', PYTEST_RUN, '1 failed'],
    ['pytest: the verdict of a run whose setup failed', FIXTURE_ERROR, '1 error'],
    ['pytest: the first failing count of a long tally', 'tests/test_a.py F..E\n=== 8 failed, 121 passed, 1 xfailed, 158 errors in 2.13s ===', '8 failed'],
    ['pytest: an old summary, with an atexit traceback after it', '=========== 1 failed in 0.03 seconds ===========\nError in atexit._run_exitfuncs:\nTraceback (most recent call last):\n  File "x.py", line 1, in f\nBrokenPipeError: [Errno 32] Broken pipe', '1 failed'],
    ['pytest: the short summary with its reason when the verdict was cut off', PYTEST_RUN.split('\n').slice(0, -1).join('\n'), 'FAILED tests/test_ports.py::test_parse_config - AssertionError: assert None == 99999'],
    ['pytest: the E line when no summary gives a reason', FIXTURE_ERROR.split('\n').slice(0, -2).join('\n'), "fixture 'mock_obj' not found"],
    ['unittest (Django runtests): FAILED (…) with its first failing count', `${traceback('AssertionError: 1163 == 1163')}\n\nRan 33 tests in 0.099s\n\nFAILED (failures=1, skipped=5)\nDestroying test database for alias 'default'...`, 'FAILED (failures=1)'],
    ['unittest: errors only', 'Ran 3 tests in 0.001s\n\nFAILED (errors=2)', 'FAILED (errors=2)'],
    ['a pytest-like banner that counts exceptions (sympy)', '=========== tests finished: 2 passed, 1 exceptions, in 0.57 seconds ============\nDO *NOT* COMMIT!', 'tests finished: 1 exceptions'],
    ['SWE-agent\'s edit linter: the reason, not the boilerplate', 'Your proposed edit has introduced new syntax error(s). Please read this error message carefully.\n\nERRORS:\n- E999 IndentationError: unexpected indent\n\nThis is how your edit would have looked if applied\n291:    missing = [x for x in y]', 'E999 IndentationError: unexpected indent'],
    ['flake8', 'src/app.py:3:1: F821 undefined name \'binascii\'\nsrc/app.py:9:80: E501 line too long (88 > 79 characters)', "src/app.py:3:1: F821 undefined name 'binascii'"],
    ['a traceback ending in StopIteration (no Error suffix)', traceback('StopIteration'), 'StopIteration'],
    ['a traceback ending in KeyboardInterrupt', traceback('KeyboardInterrupt'), 'KeyboardInterrupt'],
    ['a traceback ending in SystemExit: 2', traceback('SystemExit: 2'), 'SystemExit: 2'],
    ['a dotted exception name', traceback('django.core.exceptions.ImproperlyConfigured: Requested setting DEBUG, but settings are not configured.'), 'django.core.exceptions.ImproperlyConfigured: Requested setting DEBUG, but settings are not configured.'],
    ['the last of chained tracebacks', `${traceback('KeyError: \'id\'')}\n\nDuring handling of the above exception, another exception occurred:\n\n${traceback('ValueError: bad id')}`, 'ValueError: bad id'],
    ['a traceback cut in the middle by an agent harness', 'Traceback (most recent call last):\n\n[… 9000 characters elided …]\nRuntimeError: boom', 'RuntimeError: boom'],
    ['a missing program, whatever ran before it', 'Cleaning build...\nbash: line 1: pytest: command not found', 'bash: line 1: pytest: command not found'],
    ['dash says it differently', 'sh: 1: tsc: not found', 'sh: 1: tsc: not found'],
    ['git', "Switched to branch 'main'\nfatal: Unable to create '/repo/.git/index.lock': File exists.", "fatal: Unable to create '/repo/.git/index.lock': File exists."],
    ['a program naming itself', "python3: can't open file '/repo/run.py': [Errno 2] No such file or directory", "python3: can't open file '/repo/run.py': [Errno 2] No such file or directory"],
    ['tsc', 'src/index.ts:14:7 - error TS2322: Type \'string\' is not assignable to type \'number\'.\n\n14   const port: number = "80";\n         ~~~~\n\nFound 1 error in src/index.ts:14', "src/index.ts:14:7 - error TS2322: Type 'string' is not assignable to type 'number'."],
    ['npm', 'npm ERR! code ENOENT\nnpm ERR! syscall open\nnpm ERR! path /repo/package.json', 'npm ERR! code ENOENT'],
    ['vitest: the runner summary over the names of passing tests', ' ✓ port offset too large (3 ms)\n × parses the config (5 ms)\n\n Test Files  1 failed (1)\n      Tests  1 failed | 4 passed (5)', 'Test Files  1 failed'],
    ['jest', 'Tests:       2 failed, 1 todo, 3 passed, 6 total\nTime:        1.2 s', 'Tests:       2 failed'],
    ['a one-line tool error', 'File does not exist.', 'File does not exist.'],
    ['Claude Code\'s exit-code line is not the error', 'Exit code 1\nError: payment method not found', 'Error: payment method not found'],
    // An API client wraps the server's answer in its own words, which change with the operation that called it.
    ['an MCP tool: the server\'s reason after the HTTP status', 'Error executing tool \'update-record\': Company update failed for company 42: Bad Request: Cannot find attribute with slug/ID "note".', 'Bad Request: Cannot find attribute with slug/ID "note".'],
    ['the same reason reached by another operation', 'Error executing tool \'create-record\': Company create failed: Bad Request: Cannot find attribute with slug/ID "note".', 'Bad Request: Cannot find attribute with slug/ID "note".'],
    ['a status with its code', 'Error: GitHub API request failed: 422 Unprocessable Entity: Validation Failed', '422 Unprocessable Entity: Validation Failed'],
    ['a status phrase that starts the line is kept as it is', 'Not Found: /api/v1/users', 'Not Found: /api/v1/users'],
    ['a status phrase without a reason after it is not cut', 'Error: request failed: Forbidden', 'Error: request failed: Forbidden'],
  ])('%s', (_, message, expected) => {
    expect(errorLine(message)).toBe(expected);
  });

  it('is empty for an empty message and reads only the head and tail of a huge one', () => {
    expect(errorLine('')).toBe('');
    expect(errorLine('\n\n  \n')).toBe('');
    const huge = `${'progress line\n'.repeat(50_000)}ModuleNotFoundError: No module named 'yaml'`;
    const started = performance.now();
    expect(errorLine(huge)).toBe("ModuleNotFoundError: No module named 'yaml'");
    expect(performance.now() - started).toBeLessThan(500);
    // A hostile line is cut, never scanned whole.
    expect(errorLine(`Error: ${'a'.repeat(100_000)}`).length).toBeLessThanOrEqual(1000);
  });
});

describe('testVerdict keeps what failed and drops the rest of the tally', () => {
  it.each([
    ['==== 20 failed, 27 passed, 12 skipped, 592 deselected, 43 warnings in 6.79s ====', '20 failed'],
    ['=== 2 errors in 0.50s ===', '2 errors'],
    // A zero count is not what failed; a count before the first failing one is not either.
    ['FAILED (errors=0, failures=2)', 'FAILED (failures=2)'],
    ['Tests:       3 passed, 2 failed, 5 total', 'Tests:       2 failed'],
    // Nothing failing to name: the summary without its rules.
    ['=== 5 passed in 1.00s ===', '5 passed in 1.00s'],
    ['-- x --', '-- x --'],
  ])('%j → %j', (line, verdict) => {
    expect(testVerdict(line)).toBe(verdict);
  });

  it('reads a hostile summary in linear time', () => {
    const started = performance.now();
    const verdict = testVerdict(`=== 1 failed ${'='.repeat(200_000)}x`);
    expect(verdict).toBe('1 failed');
    expect(performance.now() - started).toBeLessThan(200);
  });
});

describe('classifyError reads the error line, not the whole output', () => {
  it('a resource that is not found is not a missing dependency', () => {
    expect(classify('Exit code 1\nError: payment method not found')).toBe('not_found');
    expect(classify('Error: Resource not found: customer cus_123')).toBe('not_found');
  });

  it("a pytest fixture that is not defined is a test failure (not 'install dependencies')", () => {
    expect(classify(FIXTURE_ERROR, 'pytest tests/test_client.py')).toBe('test_failure');
  });

  it('a message that asks for a package to be installed is a missing dependency, not a validation error', () => {
    expect(classify('ImportError: Pydantic is required. Install with: pip install pydantic')).toBe('dependency_missing');
    expect(classify('Pydantic is required. Install with: pip install pydantic')).toBe('dependency_missing');
    expect(classify(traceback('ValueError: bleach package is required when HTML escaping is disabled.'))).toBe('dependency_missing');
    // A required parameter is still a validation error.
    expect(classify('InputValidationError: Edit failed due to the following issue:\nThe required parameter `old_string` is missing')).toBe('validation_error');
  });

  it('a passing test named "port offset too large" does not make a failed suite too_large', () => {
    expect(classify(' ✓ port offset too large (3 ms)\n × parses the config (5 ms)\n\n Test Files  1 failed (1)\n      Tests  1 failed | 4 passed (5)', 'npx vitest run')).toBe('test_failure');
    expect(classify(PYTEST_RUN.replace('test_parse_config', 'test_port_offset_too_large'))).toBe('test_failure');
  });

  it('a report line no pattern names is a test failure when a test runner reported it', () => {
    const report = FIXTURE_ERROR.replace("fixture 'mock_obj' not found", "recursive dependency involving fixture 'server' detected");
    expect(errorLine(report)).toBe('1 error');
    expect(classify(report)).toBe('test_failure');
    expect(classify("recursive dependency involving fixture 'server' detected")).toBe('uncategorized');
  });

  it('exceptions named without Error or Exception are runtime errors (or what their text says)', () => {
    expect(classify(traceback('StopIteration'))).toBe('runtime_error');
    expect(classify(traceback('django.core.exceptions.ImproperlyConfigured: Requested setting DEBUG, but settings are not configured.'))).toBe('runtime_error');
    expect(classify(traceback('KeyboardInterrupt'))).toBe('runtime_error');
  });

  it('keeps what earlier versions got right on whole outputs', () => {
    expect(classify(PYTEST_RUN)).toBe('test_failure');
    expect(classify('Traceback (most recent call last):\n  File "x.py", line 1, in <module>\n    import yaml\nModuleNotFoundError: No module named \'yaml\'')).toBe('dependency_missing');
    expect(classify("fatal: Unable to create '/repo/.git/index.lock': File exists.")).toBe('git_error');
    expect(classify('[Request interrupted by user for tool use]\nsome output')).toBe('interrupted');
    expect(classify('some output\nAssertion failed: f is NOT in d')).toBe('test_failure');
  });
});

describe.skipIf(!existsSync(join(DATA, 'mini-swe-agent-gemini3-dev')))('errorLine on the real mini-swe-agent failures', () => {
  it('picks an exception, a shell complaint or a test report line for almost every failure with output', () => {
    const dir = join(DATA, 'mini-swe-agent-gemini3-dev', 'trajs');
    const lines: string[] = [];
    for (const name of readdirSync(dir).filter((file) => file.endsWith('.traj.json'))) {
      for (const message of JSON.parse(readFileSync(join(dir, name), 'utf8')).messages as { role: string; content: unknown }[]) {
        const text = typeof message.content === 'string' ? message.content : '';
        const code = /<returncode>(\d+)<\/returncode>/.exec(text);
        const output = commandOutput(text);
        if (message.role === 'user' && code && code[1] !== '0' && output.trim() !== '') lines.push(errorLine(output));
      }
    }
    expect(lines.length).toBeGreaterThanOrEqual(50);
    const stated = /^(?:[\w.]+(?:Error|Exception|Failed|Failure)\b|(?:FAILED|ERROR) \S+|\S+: |\d+ (?:failed|errors?)$|Warning, treated as error|.*\bNOT found\b)/;
    const unexplained = lines.filter((line) => !stated.test(line));
    // Every line chosen states an error (an exception, `prog: …`, a pytest line), with at most a couple
    // of outputs that print no error at all.
    expect(unexplained.length, unexplained.join('\n')).toBeLessThanOrEqual(2);
    expect(lines.filter((line) => /^Traceback|^\s|^\[…/.test(line))).toEqual([]);
  });
  it("drops Claude Code's <tool_use_error> wrapper: the same refusal with or without it is one line", () => {
    expect(errorLine('<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>')).toBe('File has not been read yet. Read it first before writing to it.');
    expect(errorLine('<tool_use_error>String to replace not found in file.\nString: a</tool_use_error>')).toBe('String to replace not found in file.');
  });
});
