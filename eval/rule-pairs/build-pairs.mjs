#!/usr/bin/env node
// Builds pairs.jsonl from rules.jsonl (real rule texts) and variants.jsonl (hand-written paraphrases,
// human-style lines and hard negatives). Deterministic: the same inputs give the same file.
// Run: node eval/rule-pairs/build-pairs.mjs > eval/rule-pairs/pairs.jsonl
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const jsonl = (name) => readFileSync(join(here, name), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
const rules = jsonl('rules.jsonl');
const variants = jsonl('variants.jsonl');

// Real rules that say the same thing (one cluster's rule on two runs, or two templates with the same advice).
const SAME = { b23: 'b01', b27: 'b01', b25: 'b02' };
// Different tool and error, same advice: the issue counts these as repeats ("two clusters whose advice is the same").
const SAME_ADVICE = [['b14', 'b01'], ['b14', 'b23']];
const group = (id) => SAME[id] ?? id;
const byId = new Map(rules.map((rule) => [rule.id, rule]));
const pairs = [];
const pair = (a, b, label, kind, of) => pairs.push({ a, b, label, kind, of });

for (const rule of rules) {
  const mine = variants.filter((v) => v.of === group(rule.id) && v.kind !== 'hard-negative');
  const hard = variants.filter((v) => v.of === group(rule.id) && v.kind === 'hard-negative');
  if (SAME[rule.id]) continue; // its group's variants are paired with the group's first rule
  for (const v of mine) pair(rule.text, v.text, 1, v.kind, rule.id);
  const para = mine.find((v) => v.kind === 'paraphrase');
  const human = mine.find((v) => v.kind === 'human');
  if (para && human) pair(para.text, human.text, 1, 'paraphrase-human', rule.id);
  // The same rule with other counts: what a second cluster with the same template family writes.
  const recounted = rule.text.replace(/\((\d+) times in (\d+) sessions?\)/, (_, n, s) => `(${Number(n) + 3} times in ${Number(s) + 1} sessions)`).replace(/ran slow (\d+) times/, (_, n) => `ran slow ${Number(n) + 2} times`);
  if (recounted !== rule.text) pair(rule.text, recounted, 1, 'counts', rule.id);
  for (const v of hard) pair(rule.text, v.text, 0, 'hard-negative', rule.id);
  if (para) for (const v of hard) pair(para.text, v.text, 0, 'hard-negative-paraphrase', rule.id);
}
for (const [id, other] of Object.entries(SAME)) pair(byId.get(other).text, byId.get(id).text, 1, 'same-rule', id);
pair(byId.get('b23').text, byId.get('b27').text, 1, 'same-rule', 'b27');
for (const [a, b] of SAME_ADVICE) pair(byId.get(a).text, byId.get(b).text, 1, 'same-advice', a);
// Real rules of one tool about different causes.
for (let i = 0; i < rules.length; i++) {
  for (let j = i + 1; j < rules.length; j++) {
    const [a, b] = [rules[i], rules[j]];
    if (a.tool !== b.tool || group(a.id) === group(b.id)) continue;
    pair(a.text, b.text, 0, 'same-tool-real', `${a.id}/${b.id}`);
  }
}
// Rules of different tools (each with the next rule of another tool).
for (let i = 0; i < rules.length; i++) {
  const b = rules.slice(i + 1).find((other) => other.tool !== rules[i].tool && group(other.id) !== group(rules[i].id));
  if (b) pair(rules[i].text, b.text, 0, 'other-tool', `${rules[i].id}/${b.id}`);
}
process.stdout.write(pairs.map((p) => JSON.stringify(p)).join('\n') + '\n');
