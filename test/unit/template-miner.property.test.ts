import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MessageCache } from '../../pipeline/templates/message-cache.js';
import { mineTemplates } from '../../pipeline/templates/mine.js';
import { TemplateMiner, type TemplateMinerOptions } from '../../pipeline/templates/miner.js';
import { templateId } from '../../pipeline/templates/template-id.js';

/**
 * The miner's promises, over generated error streams: the same input gives the same output; saved
 * state gives the same ids back; every message still matches the template it ended in (a template never
 * loses a line); mineTemplates does not depend on the order of its input; a hostile stream (many
 * distinct messages, very long ones) stays within the caps.
 */

const RUNS = 150;
const SEED = 13;

// Messages are built from skeletons with slots filled from small pools, so that templates recur, share
// all but one position, and sometimes differ in one word only; free-form text is mixed in.
const WORDS = ['pytest', 'ruff', 'mypy', 'node', 'opened', 'closed', 'root', 'admin', 'alpha', 'beta', 'gamma', 'delta'];
const SKELETONS = [
  'bash: {w}: command not found',
  "ModuleNotFoundError: No module named '{w}'",
  'fatal: unable to read {p}',
  'session {w} for user {w}',
  'PacketResponder {n} for block blk_{n} terminating',
  'Error {n}: {w} failed at {p}:{n}',
  '{w} {w} {w}',
  'connection from {n}.{n}.{n}.{n} ({w}) at Fri Jun {n} {n}:{n}:{n} 2005',
  "error: pathspec '{w} {w}' did not match",
  'login user={w} pid={n} ok',
  "{v}: can't open file {p}: [Errno {n}] No such file or directory",
  'Migration {j} in app {j} has no Migration class',
  "Model class {j} doesn't declare an explicit app_label",
];
/** Joined names (dotted, snake_case, upper-case) and a plain word, for the joined-name evidence. */
const NAMES = ['__main__.Book', '__main__.Client', 'test_questioner', 'my_test_app', 'os.path', 'JOB_DONE', 'tests'];
/** Program names with and without a version (and a device), for the leading token. */
const PROGRAMS = ['python', 'python3', 'python3.11', 'pip3', 'gcc-12', 'gcc', 'eth0'];

const word = fc.constantFrom(...WORDS);
const slot = fc.record({ w: word, n: fc.integer({ min: 0, max: 99_999 }), p: fc.constantFrom('/tmp/a.txt', './src/x.ts', '/repo/.git/index.lock', 'C:\\work\\y.log'), v: fc.constantFrom(...PROGRAMS), j: fc.constantFrom(...NAMES) });
const structured = fc.tuple(fc.constantFrom(...SKELETONS), fc.array(slot, { minLength: 8, maxLength: 8 })).map(([skeleton, slots]) => {
  let k = 0;
  return skeleton.replace(/\{([wnpvj])\}/g, (_, kind: 'w' | 'n' | 'p' | 'v' | 'j') => String(slots[k++ % slots.length]![kind]));
});
/** Free text: lower-case letters, digits and punctuation (no secret-shaped words), odd spaces included. */
const freeText = fc.string({ unit: fc.constantFrom(...'abcdefxyz0123456789 .:-_/()[]\'"=,\t\u00a0'), maxLength: 80 });
const message = fc.oneof({ weight: 4, arbitrary: structured }, { weight: 1, arbitrary: freeText });
const stream = fc.array(fc.tuple(fc.constantFrom('Bash\u0000a', 'Git\u0000b'), message), { minLength: 1, maxLength: 120 });

/** An independent reading of "the template covers the message": `<*>` is any text, a space any whitespace. */
function covers(template: string, text: string): boolean {
  const space = '[\\s\\x00-\\x20\\x85]';
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const body = template.split(' ').map((token) => token.split('<*>').map(escape).join('.*?')).join(`${space}+`);
  return new RegExp(`^${space}*${body}${space}*$`, 's').test(text);
}

function learn(pairs: [string, string][], options: Partial<TemplateMinerOptions> = {}): TemplateMiner {
  const miner = new TemplateMiner(undefined, options);
  for (const [scope, text] of pairs) miner.add(scope, text);
  return miner;
}

describe('template miner properties', () => {
  it('is deterministic: the same stream gives the same answers, state and merges', () => {
    fc.assert(
      fc.property(stream, (pairs) => {
        const a = new TemplateMiner();
        const b = new TemplateMiner();
        const answersA = pairs.map(([scope, text]) => a.add(scope, text));
        const answersB = pairs.map(([scope, text]) => b.add(scope, text));
        expect(answersB).toEqual(answersA);
        expect(b.toState()).toEqual(a.toState());
        expect(b.merged()).toEqual(a.merged());
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('never loses a line: every message matches the template it ended in, whose id is its hash', () => {
    fc.assert(
      fc.property(stream, (pairs) => {
        const miner = learn(pairs);
        for (const [scope, text] of pairs) {
          const found = miner.match(scope, text);
          expect(found, text).not.toBeNull();
          expect(covers(found!.template, text), `${found!.template} ⊉ ${JSON.stringify(text)}`).toBe(true);
          expect(found!.id).toBe(templateId(scope, found!.template));
        }
        const counted = miner.templates().reduce((sum, t) => sum + t.count, 0);
        expect(counted).toBe(pairs.length);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('keeps ids across toState and load: a rebuilt miner answers every message as the first one did', () => {
    fc.assert(
      fc.property(stream, stream, (first, later) => {
        const miner = learn(first);
        const rebuilt = new TemplateMiner(JSON.parse(JSON.stringify(miner.toState())));
        expect(rebuilt.toState()).toEqual(miner.toState());
        for (const [scope, text] of [...first, ...later]) expect(rebuilt.match(scope, text)).toEqual(miner.match(scope, text));
        // Both go on learning the same way.
        expect(later.map(([s, t]) => rebuilt.add(s, t))).toEqual(later.map(([s, t]) => miner.add(s, t)));
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('mineTemplates does not depend on the order of its input, and its templates cover their messages', () => {
    fc.assert(
      fc.property(fc.array(message, { minLength: 1, maxLength: 100 }).chain((m) => fc.tuple(fc.constant(m), fc.shuffledSubarray(m.map((_, i) => i), { minLength: m.length, maxLength: m.length }))), ([messages, order]) => {
        const mined = mineTemplates(messages);
        const shuffled = mineTemplates(order.map((i) => messages[i]!));
        order.forEach((i, k) => expect(shuffled[k]).toEqual(mined[i]));
        mined.forEach((m, i) => expect(covers(m.template, messages[i]!), `${m.template} ⊉ ${messages[i]}`).toBe(true));
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('stays within its caps under a hostile stream: many distinct scopes and messages, very long messages', () => {
    const options = { maxTemplatesPerScope: 15, maxTemplates: 40, maxMessageLength: 200, maxTokens: 12, cacheEntries: 50, cacheChars: 2000 };
    const long = fc.string({ unit: fc.constantFrom(...'abcdefghij0123456789 ./:-'), minLength: 150, maxLength: 3000 });
    const hostile = fc.array(fc.tuple(fc.constantFrom('s1', 's2', 's3', 's4', 's5'), fc.oneof(message, long, fc.string({ maxLength: 40 }))), { minLength: 50, maxLength: 400 });
    fc.assert(
      fc.property(hostile, (pairs) => {
        const miner = learn(pairs, options);
        const templates = miner.templates();
        expect(templates.length).toBeLessThanOrEqual(options.maxTemplates);
        for (const scope of new Set(templates.map((t) => t.scope))) {
          expect(templates.filter((t) => t.scope === scope).length).toBeLessThanOrEqual(options.maxTemplatesPerScope);
        }
        for (const t of templates) {
          expect(t.template.length).toBeLessThanOrEqual(options.maxMessageLength + 4);
          expect(t.template.split(' ').length).toBeLessThanOrEqual(options.maxTokens);
        }
        expect(miner.merged().size).toBeLessThanOrEqual(4 * options.maxTemplates);
        // A scope that could keep nothing is not even remembered.
        expect(Object.keys(miner.toState().scopes).length).toBeLessThanOrEqual(options.maxTemplates);
        // Every message still gets an answer: its template, or its scope's catch-all.
        for (const [scope, text] of pairs) expect(miner.add(scope, text).id).toMatch(/^t-[0-9a-f]{12}$/);
      }),
      { numRuns: 60, seed: SEED },
    );
  });

  it('the message cache never holds more than its entries and characters', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c'), fc.string({ maxLength: 60 }), fc.boolean()), { maxLength: 300 }), (ops) => {
        const cache = new MessageCache<number>({ cacheEntries: 20, cacheChars: 300 });
        ops.forEach(([scope, text, forget], i) => {
          if (forget) cache.forget(scope);
          else cache.set(scope, text, i);
          expect(cache.size.entries).toBeLessThanOrEqual(20);
          expect(cache.size.chars).toBeLessThanOrEqual(300);
        });
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });
});
