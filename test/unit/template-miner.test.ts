import { describe, expect, it } from 'vitest';
import { SleepCycleError } from '../../pipeline/model/errors.js';
import { mineTemplates } from '../../pipeline/templates/mine.js';
import { TemplateMiner } from '../../pipeline/templates/miner.js';
import { templateId } from '../../pipeline/templates/template-id.js';

const SCOPE = 'Bash\u0000command_not_found';

/** The template each message ends in, once all were learnt (in this order). */
function learnAll(messages: string[], scope = SCOPE): { miner: TemplateMiner; templates: string[] } {
  const miner = new TemplateMiner();
  for (const m of messages) miner.add(scope, m);
  return { miner, templates: messages.map((m) => miner.match(scope, m)?.template ?? '(none)') };
}

describe('templates of real-shaped agent errors', () => {
  it('masks the module a Python import could not find', () => {
    const { templates } = learnAll([
      "ModuleNotFoundError: No module named 'foo'",
      "ModuleNotFoundError: No module named 'requests.adapters'",
    ]);
    expect(templates).toEqual(Array(2).fill("ModuleNotFoundError: No module named '<*>'"));
  });

  it('learns that the missing command varies once three different ones failed, and reports the merge', () => {
    const miner = new TemplateMiner();
    const pytest = miner.add(SCOPE, 'bash: pytest: command not found');
    const ruff = miner.add(SCOPE, 'bash: ruff: command not found');
    // Two values are not yet evidence: `session opened` / `session closed` also differ in one word.
    expect(pytest.template).toBe('bash: pytest: command not found');
    expect(ruff.id).not.toBe(pytest.id);
    const mypy = miner.add(SCOPE, 'bash: mypy: command not found');
    expect(mypy).toEqual({ id: templateId(SCOPE, 'bash: <*>: command not found'), template: 'bash: <*>: command not found' });
    expect(miner.merged()).toEqual(new Map([[pytest.id, mypy.id], [ruff.id, mypy.id]]));
    expect(miner.match(SCOPE, 'bash: tsc: command not found')).toEqual(mypy);
    expect(miner.templates()).toEqual([{ scope: SCOPE, ...mypy, count: 3 }]);
  });

  it('keeps a lock file error whole but masks the path it quotes', () => {
    const { templates } = learnAll([
      "fatal: Unable to create '/repo/.git/index.lock': File exists.",
      "fatal: Unable to create '/home/alice/app/.git/index.lock': File exists.",
    ]);
    expect(templates).toEqual(Array(2).fill("fatal: Unable to create '<*>': File exists."));
  });

  it.each([
    ["error: pathspec 'my file.txt' did not match any file(s) known to git", "error: pathspec '<*>' did not match any file(s) known to git"],
    ["FileNotFoundError: [Errno 2] No such file or directory: 'data.csv'", "FileNotFoundError: [Errno <*>] No such file or directory: '<*>'"],
    ['sh: 1: vitest: not found', 'sh: <*>: vitest: not found'],
    ['Error: connect ECONNREFUSED 127.0.0.1:5432', 'Error: connect ECONNREFUSED <*>'],
    ['npm ERR! 404 Not Found - GET https://registry.npmjs.org/left-padx - Not found', 'npm ERR! <*> Not Found - GET <*> - Not found'],
    ["src/app.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'.", "<*>(<*>,<*>): error TS2322: Type '<*>' is not assignable to type '<*>'."],
    // A date is values in a row: one value, however many tokens it takes.
    ['connection from 24.54.76.216 () at Fri Jun 17 07:07:00 2005', 'connection from <*> () at <*>'],
    ['PCI Interrupt Link [LNKA] (IRQs 3 4 5 6 7 10 11 12) *14', 'PCI Interrupt Link [LNKA] (IRQs <*> <*>) <*>'],
    ['Launching attempt_1445144423722_0020_m_000000_0 on node-129', 'Launching <*> on <*>'],
    // Digits that are part of a name stay; a version or number joined by punctuation is a value.
    ['eth0: e1000 driver for ssh2 and log4j failed (TS2307)', 'eth0: e1000 driver for ssh2 and log4j failed (TS2307)'],
    ['OpenSSH_7.4 rejected key', '<*> rejected key'],
    // A token that is one quoted string is a value, whatever punctuation it holds; so is a code point.
    ["E999 SyntaxError: unmatched ')'", "E999 SyntaxError: unmatched '<*>'"],
    ["Codepoint U+005B at position 1 of '[1200:0000:ab00::1313]' not allowed", "Codepoint <*> at position <*> of '<*>' not allowed"],
    ["Codepoint U+002A at position 1 of '*' not allowed", "Codepoint <*> at position <*> of '<*>' not allowed"],
    ['Cannot find attribute with slug/ID "note".', 'Cannot find attribute with slug/ID "<*>".'],
    ["bad key: 'x' (did you mean 'y'?)", "bad key: '<*>' (did you mean '<*>'?)"],
  ])('%j → %j', (message, template) => {
    expect(new TemplateMiner().add(SCOPE, message).template).toBe(template);
  });

  it('keeps two events that differ in one word apart, and never generalises the leading token', () => {
    const { templates } = learnAll([
      'session opened for user root',
      'session closed for user root',
      'pytest: error: unrecognized arguments',
      'ruff: error: unrecognized arguments',
      'mypy: error: unrecognized arguments',
    ]);
    expect(templates).toEqual([
      'session opened for user root',
      'session closed for user root',
      'pytest: error: unrecognized arguments',
      'ruff: error: unrecognized arguments',
      'mypy: error: unrecognized arguments',
    ]);
  });

  it('takes a joined name (dotted or snake_case) as a value once a second one shows at the same place', () => {
    const { miner, templates } = learnAll([
      "RuntimeError: Model class __main__.Book doesn't declare an explicit app_label",
      "RuntimeError: Model class __main__.Client doesn't declare an explicit app_label",
    ]);
    expect(templates).toEqual(Array(2).fill("RuntimeError: Model class __main__.<*> doesn't declare an explicit app_label"));
    expect(miner.merged().size).toBe(1);
    // Upper-case names are constants or states, which name an event; plain words still need three.
    expect(learnAll(['event EventType: JOB_SETUP_COMPLETED', 'event EventType: JOB_KILLED']).templates)
      .toEqual(['event EventType: JOB_SETUP_COMPLETED', 'event EventType: JOB_KILLED']);
    expect(learnAll(['Model class Book is abstract', 'Model class Client is abstract']).templates)
      .toEqual(['Model class Book is abstract', 'Model class Client is abstract']);
  });

  it('merges two templates that differ at two places only where each place shows a joined name', () => {
    const messages = [
      'BadMigrationError: Migration test_questioner in app tests has no Migration class',
      'BadMigrationError: Migration routers in app my_test_app has no Migration class',
    ];
    for (const order of [messages, [...messages].reverse()]) {
      const { miner, templates } = learnAll(order);
      expect(templates).toEqual(Array(2).fill('BadMigrationError: Migration <*> in app <*> has no Migration class'));
      expect(miner.templates()).toHaveLength(1);
      expect(miner.match(SCOPE, 'BadMigrationError: Migration views in app shop has no Migration class')?.template)
        .toBe('BadMigrationError: Migration <*> in app <*> has no Migration class');
    }
    // Words at two places are two events; so are values that differ because the events do (a local
    // login has tty=:0 and no host, a remote one a host).
    const apart = [
      'session opened for user root',
      'session closed for user alice',
      'authentication failure; logname= uid=0 euid=0 tty=NODEVssh ruser= rhost=10.0.0.1',
      'authentication failure; logname= uid=0 euid=0 tty=:0 ruser= rhost=',
    ];
    expect(new Set(learnAll(apart).templates).size).toBe(4);
  });

  it('knows a program by its name, not its version: python3 and python share a template, in either order', () => {
    const python3 = "python3: can't open file '/testbed/a.py': [Errno 2] No such file or directory";
    const python = "python: can't open file '/testbed/b.py': [Errno 2] No such file or directory";
    const shared = "python<*>: can't open file '<*>': [Errno <*>] No such file or directory";
    for (const order of [[python3, python], [python, python3]]) {
      const miner = new TemplateMiner();
      const first = miner.add(SCOPE, order[0]!);
      expect(miner.add(SCOPE, order[1]!).template).toBe(shared);
      expect(miner.match(SCOPE, order[0]!)?.template).toBe(shared);
      expect(miner.templates()).toHaveLength(1);
      // A merge is reported when the literal template came first.
      expect(miner.merged().size).toBe(first.template === shared ? 0 : 1);
    }
    expect(learnAll(['python3.11: x failed', 'gcc-12: x failed']).templates).toEqual(['python<*>: x failed', 'gcc<*>: x failed']);
    // Only a version comes off: another program, or a device named with digits, is a different head.
    expect(learnAll(['python3: x failed', 'pythonx: x failed', 'eth0: x failed', 'eth: x failed']).templates)
      .toEqual(['python<*>: x failed', 'pythonx: x failed', 'eth0: x failed', 'eth: x failed']);
  });

  it('lets a <*> take a word only where a word could vary: past the leading token, next to a kept word', () => {
    // `12...` does not take `loading...`, nor `4 failed` `disk failed`: the leading token names the event.
    expect(learnAll(['12...', 'loading...']).templates).toEqual(['<*>...', 'loading...']);
    expect(learnAll(['4 failed', 'disk failed']).templates).toEqual(['<*> failed', 'disk failed']);
    // Further in, a word where values are seen is a value too, in either order.
    for (const order of [['10.0.0.1', 'ns.example.com'], ['ns.example.com', '10.0.0.1']]) {
      const miner = new TemplateMiner();
      const [first, second] = order.map((host) => miner.add(SCOPE, `reverse mapping for ${host} failed`));
      expect(second!.template).toBe('reverse mapping for <*> failed');
      expect(miner.match(SCOPE, `reverse mapping for ${order[0]} failed`)).toEqual(second);
      expect(miner.merged()).toEqual(first!.id === second!.id ? new Map() : new Map([[first!.id, second!.id]]));
      expect(miner.match(SCOPE, 'reverse mapping for localhost failed')).toEqual(second);
    }
  });

  it('gives a position that holds a value by its form the pattern that keeps its key', () => {
    const { templates } = learnAll(['login failed user=root from <*>', 'login failed user=admin from <*>', 'login failed user=guest from <*>']);
    expect(new Set(templates)).toEqual(new Set(['login failed user=<*> from <*>']));
  });

  it('never mixes scopes: the same message has a different template id in each', () => {
    const miner = new TemplateMiner();
    const a = miner.add('Bash\u0000a', 'bash: x: command not found');
    const b = miner.add('Bash\u0000b', 'bash: x: command not found');
    expect(a.template).toBe(b.template);
    expect(a.id).not.toBe(b.id);
    expect(a.id).toMatch(/^t-[0-9a-f]{12}$/);
  });

  it('keeps a secret out of a template, which is saved in state', () => {
    const miner = new TemplateMiner();
    const t = miner.add(SCOPE, 'login failed: password=hunter2 for admin');
    expect(t.template).not.toContain('hunter2');
    expect(JSON.stringify(miner.toState())).not.toContain('hunter2');
    expect(miner.match(SCOPE, 'login failed: password=hunter2 for admin')).toEqual(t);
  });
});

describe('the miner API', () => {
  it('match learns nothing', () => {
    const miner = new TemplateMiner();
    expect(miner.match(SCOPE, 'bash: x: command not found')).toBeNull();
    expect(miner.templates()).toEqual([]);
    miner.add(SCOPE, 'bash: x: command not found');
    expect(miner.match(SCOPE, 'bash: x: command not found')?.template).toBe('bash: x: command not found');
    expect(miner.templates()[0]!.count).toBe(1);
  });

  it('saves sorted plain JSON and a new miner built from it gives the same ids', () => {
    const miner = new TemplateMiner();
    for (const cmd of ['pytest', 'ruff', 'mypy']) miner.add(SCOPE, `bash: ${cmd}: command not found`);
    miner.add('Git\u0000git_error', "fatal: Unable to create '/r/.git/index.lock': File exists.");
    const state = miner.toState();
    expect(state).toEqual({
      version: 1,
      scopes: {
        'Bash\u0000command_not_found': [{ id: templateId(SCOPE, 'bash: <*>: command not found'), template: 'bash: <*>: command not found', count: 3 }],
        'Git\u0000git_error': [{ id: templateId('Git\u0000git_error', "fatal: Unable to create '<*>': File exists."), template: "fatal: Unable to create '<*>': File exists.", count: 1 }],
      },
    });
    const again = new TemplateMiner(JSON.parse(JSON.stringify(state)));
    expect(again.toState()).toEqual(state);
    expect(again.match(SCOPE, 'bash: go: command not found')?.id).toBe(state.scopes[SCOPE]![0]!.id);
    expect(again.merged().size).toBe(0);
  });

  it.each([
    ['not an object', 'nope'],
    ['a wrong version', { version: 2, scopes: {} }],
    ['a scope that is not a list', { version: 1, scopes: { a: {} } }],
    ['a negative count', { version: 1, scopes: { a: [{ id: templateId('a', 'x'), template: 'x', count: -1 }] } }],
    ['an id that is not its template\'s', { version: 1, scopes: { a: [{ id: templateId('a', 'y'), template: 'x', count: 1 }] } }],
  ])('refuses saved state with %s (E_STATE, with how to fix it)', (_what, state) => {
    let thrown: unknown;
    try {
      new TemplateMiner(state as never);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SleepCycleError);
    expect((thrown as SleepCycleError).code).toBe('E_STATE');
    expect((thrown as SleepCycleError).message).toMatch(/Restore the file from git/);
  });

  it('past its cap a scope drops its lightest template for a heavier new message; one-off noise neither displaces a repeated one nor churns', () => {
    const miner = new TemplateMiner(undefined, { maxTemplatesPerScope: 3 });
    miner.add(SCOPE, 'alpha failed', 4);
    miner.add(SCOPE, 'beta stopped');
    miner.add(SCOPE, 'gamma crashed');
    // As light as the lightest: the catch-all, nothing dropped.
    expect(miner.add(SCOPE, 'delta hung')).toEqual({ id: templateId(SCOPE, '<*>'), template: '<*>' });
    // Heavier: beta, the lightest kept longest, gives way.
    expect(miner.add(SCOPE, 'delta hung', 2).template).toBe('delta hung');
    expect(miner.templates().map((t) => t.template)).toEqual(['alpha failed', 'delta hung', 'gamma crashed']);
    // A flood of one-offs (their leading words differ, so none merge) changes nothing.
    for (const w of ['ab', 'ac', 'ad', 'ae', 'af', 'ag', 'ah', 'ai', 'aj', 'ak']) expect(miner.add(SCOPE, `${w} zapped`).template).toBe('<*>');
    expect(miner.templates().map((t) => [t.template, t.count])).toEqual([['alpha failed', 4], ['delta hung', 2], ['gamma crashed', 1]]);
    expect(miner.dropped()).toBe(1);
  });

  it('a template loaded from state and not seen since weighs half: last night\'s noise gives way to tonight\'s failure', () => {
    const flooded = new TemplateMiner(undefined, { maxTemplatesPerScope: 3 });
    for (const m of ['alpha failed', 'beta stopped', 'gamma crashed']) flooded.add(SCOPE, m);
    const miner = new TemplateMiner(flooded.toState(), { maxTemplatesPerScope: 3 });
    expect(miner.add(SCOPE, 'delta hung').template).toBe('delta hung');
    // Seen again tonight, a template weighs its whole count.
    miner.add(SCOPE, 'gamma crashed');
    expect(miner.add(SCOPE, 'epsilon lost').template).toBe('epsilon lost');
    expect(miner.templates().map((t) => t.template)).toEqual(['delta hung', 'epsilon lost', 'gamma crashed']);
  });

  it('past the overall cap, the lightest template of any scope gives way to a heavier one, and an emptied scope leaves no trace', () => {
    const miner = new TemplateMiner(undefined, { maxTemplates: 3 });
    miner.add('real', 'disk full', 3);
    for (let i = 0; i < 1000; i++) miner.add(`tool-${i}`, 'disk full');
    expect(miner.templates().map((t) => t.scope)).toEqual(['real', 'tool-0', 'tool-1']);
    expect(miner.match('tool-999', 'disk full')).toBeNull();
    expect(miner.add('other', 'disk full', 2)).toEqual({ id: templateId('other', 'disk full'), template: 'disk full' });
    expect(Object.keys(miner.toState().scopes)).toEqual(['other', 'real', 'tool-1']);
    expect(miner.match('real', 'disk full')?.template).toBe('disk full');
  });

  it('saves at most maxSavedTemplates, the heaviest (last night\'s unseen ones weigh half), and says how many it left out', () => {
    const miner = new TemplateMiner(undefined, { maxSavedTemplates: 3 });
    miner.add('a', 'disk full', 5);
    for (let i = 0; i < 50; i++) miner.add(`tool-${i}`, 'disk full');
    miner.add('b', 'quota hit', 2);
    expect(miner.unsaved()).toBe(49);
    const saved = miner.toState();
    expect(Object.keys(saved.scopes)).toEqual(['a', 'b', 'tool-0']);
    // Loaded and not seen again, 'a' (5) weighs 2.5: tonight's 'c' (3) and 'd' (3) outweigh it, 'b' (2, now 1) and the one-offs do not.
    const next = new TemplateMiner(saved, { maxSavedTemplates: 3 });
    next.add('c', 'disk full', 3);
    next.add('d', 'disk full', 3);
    expect(Object.keys(next.toState().scopes)).toEqual(['a', 'c', 'd']);
  });

  it('cuts a long message and marks the cut with one <*>', () => {
    const miner = new TemplateMiner(undefined, { maxMessageLength: 40, maxTokens: 5 });
    expect(miner.add(SCOPE, `Error: ${'word '.repeat(100)}`).template).toBe('Error: word word word <*>');
    expect(miner.add(SCOPE, `Fatal ${'x'.repeat(10_000)}`).template).toBe('Fatal <*>');
  });
});

describe('mineTemplates', () => {
  it('gives every message its final template, whatever the order', () => {
    const messages = ['bash: a: command not found', 'disk full', 'bash: b: command not found', 'bash: c: command not found'];
    const expected = [
      { template_id: templateId('', 'bash: <*>: command not found'), template: 'bash: <*>: command not found' },
      { template_id: templateId('', 'disk full'), template: 'disk full' },
    ];
    expect(mineTemplates(messages)).toEqual([expected[0], expected[1], expected[0], expected[0]]);
    expect(mineTemplates([...messages].reverse())).toEqual([expected[0], expected[0], expected[1], expected[0]]);
    expect(mineTemplates(['x'], { scope: 's' })[0]!.template_id).toBe(templateId('s', 'x'));
  });
});
