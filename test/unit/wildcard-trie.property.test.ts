import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TemplateIndex } from '../../pipeline/templates/template-index.js';
import { admits, makeUnit, type Unit } from '../../pipeline/templates/unit.js';
import { WILDCARD } from '../../pipeline/templates/tokenize.js';

/**
 * The index finds, for a message's tokens, the template a scan of every live template would pick: of
 * those that admit the tokens at every position (unit.ts), the one with the most equal tokens, then the
 * most literal tokens, then the smallest text. The wildcard trie only narrows the scan, so this holds
 * after any sequence of adds and deletes.
 */
const TOKENS = ['a', 'b', 'err', 'x=1', 'x=2', 'id7', '(q)', WILDCARD, `x=${WILDCARD}`, `id${WILDCARD}`, `(${WILDCARD})`, `${WILDCARD}b`];
const QUERY = ['a', 'b', 'err', 'x=1', 'x=9', 'x=', 'id7', 'id', '()', '(q)', 'bb', WILDCARD, `x=${WILDCARD}`];

function scan(units: readonly Unit[], tokens: readonly string[]): Unit | undefined {
  let best: Unit | undefined;
  let key: [number, number] = [-1, -1];
  for (const unit of units) {
    if (unit.tokens.length !== tokens.length || tokens.length === 0) continue;
    if (!tokens.every((token, i) => admits(unit, i, token))) continue;
    const exact = tokens.filter((token, i) => unit.tokens[i] === token).length;
    const literal = unit.tokens.filter((token) => token !== WILDCARD).length;
    if (!best || exact > key[0] || (exact === key[0] && (literal > key[1] || (literal === key[1] && unit.result.template < best.result.template)))) {
      best = unit;
      key = [exact, literal];
    }
  }
  return best;
}

describe('template index', () => {
  it('answers as a scan of every live template, after any adds and deletes', () => {
    const template = fc.array(fc.constantFrom(...TOKENS), { minLength: 1, maxLength: 4 });
    const query = fc.array(fc.constantFrom(...QUERY), { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(fc.array(template, { maxLength: 40 }), fc.array(fc.nat(), { maxLength: 15 }), fc.array(query, { minLength: 1, maxLength: 30 }), (templates, deletions, queries) => {
        const index = new TemplateIndex();
        const live = new Map<string, Unit>();
        for (const tokens of templates) {
          const unit = makeUnit('s', tokens);
          if (live.has(unit.result.template)) continue;
          live.set(unit.result.template, unit);
          index.add(unit);
        }
        for (const n of deletions) {
          const units = [...live.values()];
          if (units.length === 0) break;
          const unit = units[n % units.length]!;
          live.delete(unit.result.template);
          index.delete(unit);
        }
        for (const tokens of queries) expect(index.best(tokens)?.result.template).toBe(scan([...live.values()], tokens)?.result.template);
      }),
      { numRuns: 400, seed: 17 },
    );
  });
});
