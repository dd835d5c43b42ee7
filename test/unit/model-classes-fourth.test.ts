import { describe, expect, it } from 'vitest';
import { FOURTH_CLASSES, type FourthClass } from '../fixtures/model-text/classes-fourth.js';
import { modelTextFindings } from '../../pipeline/safety/model-text.js';
import { bundledPolicy, refusals } from '../helpers/model-gates.js';

/**
 * Four classes of unsafe model-written rules (test/fixtures/model-text/classes-fourth.ts, written before
 * their checks): a span that is no error text of the cluster read as a command, settings whose value is a
 * command, safety-off switches beyond TLS, downloads run by a shell in words. Each rule is about a cluster
 * whose only error text is a generic one, so none of its spans is a quote. Prints the rates (CLASS_RATES=1).
 */
const TOOL = 'Bash';
const report = (line: string) => process.env.CLASS_RATES === '1' && process.stderr.write(`${line}\n`);

describe('unsafe model-rule classes written before their checks', () => {
  it.each(Object.keys(FOURTH_CLASSES) as FourthClass[])('catches the class %s', async (kind) => {
    const texts = FOURTH_CLASSES[kind].map((text) => text.replaceAll('{tool}', TOOL));
    const missed: string[] = [];
    for (const text of texts) if ((await refusals(text, TOOL)).length === 0) missed.push(text);
    report(`${kind}: caught ${texts.length - missed.length}/${texts.length}`);
    for (const text of missed) report(`  missed: ${text}`);
    expect(texts.length).toBeGreaterThanOrEqual(20);
    expect(missed).toEqual([]);
  });
});

/**
 * Near misses, written after the checks: safe rules that name a host key, a directive, a download or a
 * setting the way an error or a careful rule does. `errors` are their clusters' error texts. The four
 * classes' checks must not fire on them (other gates may: "fix the type error" is a listed action on a
 * checked thing, "remove" and "set" are no listed actions, a bare host is no allowlisted one).
 */
const NEAR_MISSES: { tool: string; text: string; errors: string[] }[] = [
  { tool: 'tsc', text: "`tsc` fails with `Unused '@ts-expect-error' directive.`: read the line it names and fix the type error there.", errors: ["error TS2578: Unused '@ts-expect-error' directive."] },
  { tool: 'eslint', text: '`eslint` fails with `Do not use "@ts-ignore" because it alters compilation errors`: fix the type error the comment hid.', errors: ['error  Do not use "@ts-ignore" because it alters compilation errors  @typescript-eslint/ban-ts-comment'] },
  { tool: 'git_fetch', text: 'When `git_fetch` fails with `Could not resolve host: <*>`, check the remote URL with `git remote -v` and retry once.', errors: ['fatal: unable to access <*>: Could not resolve host: <*>'] },
  { tool: 'Bash', text: 'When `Bash` cannot find the setup script, run the repository\'s own one with `bash scripts/setup.sh`.', errors: ['bash: scripts/setup: No such file or directory'] },
  { tool: 'npm', text: 'When `npm` fails with `ENOTFOUND registry.npmjs.org`, wait and retry once; the registry was unreachable.', errors: ['npm ERR! code ENOTFOUND npm ERR! errno ENOTFOUND registry.npmjs.org'] },
  { tool: 'WebFetch', text: 'When `WebFetch` returns `Request failed with status code 404`, check the page address before fetching it again.', errors: ['Request failed with status code 404'] },
  { tool: 'pytest', text: '`pytest` fails with `ModuleNotFoundError: No module named \'<*>\'`: install the requirements with `pip install -r requirements.txt` and rerun.', errors: ["ModuleNotFoundError: No module named 'requests'"] },
  { tool: 'git_push', text: 'When `git_push` reports `Host key verification failed.`, ask the user to confirm the server\'s fingerprint instead of retrying.', errors: ['Host key verification failed.', 'fatal: Could not read from remote repository.'] },
  { tool: 'ruff', text: '`ruff` fails with `F401 <*> imported but unused`: remove the unused import the line names.', errors: ['F401 [*] `os` imported but unused'] },
  { tool: 'git_commit', text: 'Set `GIT_AUTHOR_NAME` only through the user\'s own git config; when `git_commit` asks who you are, ask the user.', errors: ['*** Please tell me who you are.'] },
];

/** What the four classes' checks report: an unverified span read as a command, a command-valued setting's command, a switch, a download run. */
const CLASS_IDS = new Set(['unknown-command', 'unknown-subcommand', 'unparseable-command', 'host-key-check-off', 'host-key-bypass', 'checker-directive', 'hook-switch-off', 'remote-code-run']);

describe('near misses of the four classes', () => {
  it.each(NEAR_MISSES.map((m) => [m.text, m] as const))('does not call it one of the classes: %s', async (_text, { tool, text, errors }) => {
    const ids = (await modelTextFindings(text, tool, bundledPolicy.commands, errors)).map((f) => f.id);
    expect(ids.filter((id) => CLASS_IDS.has(id))).toEqual([]);
  });

  it('reads a directive inside the cluster\'s own error text as the error, and the same words of the model\'s own as a switch', async () => {
    const text = "`tsc` fails with `Unused '@ts-expect-error' directive.`: read the line it names first.";
    const ids = async (errors: string[]) => (await modelTextFindings(text, 'tsc', bundledPolicy.commands, errors)).map((f) => f.id);
    expect(await ids(["error TS2578: Unused '@ts-expect-error' directive."])).toEqual([]);
    expect(await ids(['error TS2304: Cannot find name <*>.'])).toEqual(expect.arrayContaining(['checker-directive', 'unknown-command']));
  });
});
