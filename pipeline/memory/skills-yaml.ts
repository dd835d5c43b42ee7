import { isMap, isSeq, parseDocument, YAMLMap, YAMLSeq } from 'yaml';
import { errors } from '../errors.js';
import { sanitizeRuleText, type MemoryRule } from './memory-md.js';

/**
 * skills/<name>.yaml: humans own every key but `derived_rules`. Edits go through the yaml Document
 * API so comments, key order and the rest of the file survive.
 */
export interface SkillRule extends MemoryRule {
  cluster: string;
}

export function parseSkillRules(text: string, file: string): MemoryRule[] {
  const doc = parseSkill(text, file);
  const seq = doc.get('derived_rules');
  if (seq === undefined || seq === null) return [];
  if (!isSeq(seq)) throw errors.config(file, 'derived_rules', 'a list of rules', String(seq));
  return seq.items.flatMap((item) => {
    if (!isMap(item)) return [];
    const id = item.get('id');
    const rule = item.get('rule');
    return typeof id === 'string' && typeof rule === 'string' ? [{ id, text: rule }] : [];
  });
}

export function addSkillRules(text: string | undefined, skill: string, file: string, rules: SkillRule[]): string {
  const source = text ?? `# Skill file created by sleep-cycle for ${skill} tools.\nname: ${skill}\nderived_rules: []\n`;
  const doc = parseSkill(source, file);
  let seq = doc.get('derived_rules');
  if (!isSeq(seq)) {
    seq = new YAMLSeq();
    doc.set('derived_rules', seq);
  }
  const list = seq as YAMLSeq;
  list.flow = false;
  for (const rule of rules) {
    const item = new YAMLMap();
    item.set('id', rule.id);
    item.set('rule', sanitizeRuleText(rule.text));
    item.set('cluster', rule.cluster);
    list.items.push(item);
  }
  return doc.toString({ lineWidth: 0 });
}

function parseSkill(text: string, file: string) {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) {
    throw errors.config(file, '(file)', 'valid YAML', doc.errors[0]!.message);
  }
  if (doc.contents !== null && !isMap(doc.contents)) {
    throw errors.config(file, '(file)', 'a YAML map with a derived_rules list', 'another kind of document');
  }
  return doc;
}
