/**
 * The templates with a wildcard, as a trie over their tokens (one per length): a message walks the
 * literal child equal to its token and each pattern child whose pattern fits it, so it meets only the
 * templates that could admit it, not every template of its length and leading token. A flood of
 * distinct lines that share a head (`error: <name> failed at <*>`) made that list a thousand long and
 * each new line compared with all of it. The walk is a filter: `admits` (unit.ts) still decides, and the
 * caller's order picks among what the walk found, so answers are those of the full scan.
 */
import { fits } from './pattern.js';
import type { Unit } from './unit.js';

interface TrieNode {
  readonly literal: Map<string, TrieNode>;
  readonly pattern: Map<string, { readonly parts: readonly string[]; readonly node: TrieNode }>;
  readonly units: Unit[];
}

const newNode = (): TrieNode => ({ literal: new Map(), pattern: new Map(), units: [] });

export class WildcardTrie {
  readonly #roots = new Map<number, TrieNode>();

  add(unit: Unit): void {
    let node = this.#roots.get(unit.tokens.length);
    if (!node) this.#roots.set(unit.tokens.length, (node = newNode()));
    for (let i = 0; i < unit.tokens.length; i++) node = child(node, unit.tokens[i]!, unit.parts[i] ?? null);
    node.units.push(unit);
  }

  delete(unit: Unit): void {
    const root = this.#roots.get(unit.tokens.length);
    if (!root) return;
    const path: { node: TrieNode; token: string; literal: boolean }[] = [];
    let node = root;
    for (let i = 0; i < unit.tokens.length; i++) {
      const token = unit.tokens[i]!;
      const literal = unit.parts[i] === null;
      const next = literal ? node.literal.get(token) : node.pattern.get(token)?.node;
      if (!next) return;
      path.push({ node, token, literal });
      node = next;
    }
    const at = node.units.indexOf(unit);
    if (at < 0) return;
    node.units.splice(at, 1);
    // Prune the branch it leaves empty, so a churning scope does not keep dead nodes.
    for (let i = path.length - 1; i >= 0 && isEmpty(node); i--) {
      const { node: parent, token, literal } = path[i]!;
      if (literal) parent.literal.delete(token);
      else parent.pattern.delete(token);
      node = parent;
    }
    if (isEmpty(root)) this.#roots.delete(unit.tokens.length);
  }

  /** Every unit whose tokens each equal or fit (as a pattern) these tokens, in no particular order. */
  candidates(tokens: readonly string[]): Unit[] {
    const root = this.#roots.get(tokens.length);
    const found: Unit[] = [];
    if (root) walk(root, tokens, 0, found);
    return found;
  }
}

function child(node: TrieNode, token: string, parts: readonly string[] | null): TrieNode {
  if (parts === null) {
    let next = node.literal.get(token);
    if (!next) node.literal.set(token, (next = newNode()));
    return next;
  }
  let entry = node.pattern.get(token);
  if (!entry) node.pattern.set(token, (entry = { parts, node: newNode() }));
  return entry.node;
}

function walk(node: TrieNode, tokens: readonly string[], i: number, found: Unit[]): void {
  if (i === tokens.length) {
    for (const unit of node.units) found.push(unit);
    return;
  }
  const token = tokens[i]!;
  const literal = node.literal.get(token);
  if (literal) walk(literal, tokens, i + 1, found);
  for (const [own, { parts, node: next }] of node.pattern) if (own === token || fits(own, parts, token)) walk(next, tokens, i + 1, found);
}

const isEmpty = (node: TrieNode): boolean => node.units.length === 0 && node.literal.size === 0 && node.pattern.size === 0;
