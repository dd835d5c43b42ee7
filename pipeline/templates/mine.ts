/**
 * Templates for a list of messages at once (the library face of the miner, and what `npm run eval`
 * measures): each message gets the template it belongs to once all of them have been learnt.
 */
import { TemplateMiner, type MinedTemplate, type TemplateMinerOptions } from './miner.js';

export interface MineOptions extends Partial<TemplateMinerOptions> {
  /** The scope the messages share (part of every id); default ''. */
  readonly scope?: string;
}

export interface MinedLine {
  readonly template_id: string;
  readonly template: string;
}

/**
 * One `{ template_id, template }` per message, in input order. The messages are learnt in sorted order,
 * so the result depends on the messages, not on their order.
 */
export function mineTemplates(messages: readonly string[], options: MineOptions = {}): MinedLine[] {
  const scope = options.scope ?? '';
  const miner = new TemplateMiner(undefined, options);
  const order = messages.map((_, i) => i).sort((a, b) => compare(messages[a]!, messages[b]!) || a - b);
  const learnt = new Array<MinedTemplate>(messages.length);
  for (const i of order) learnt[i] = miner.add(scope, messages[i]!);
  // Later merges may have generalised a message's first template; past a cap, the catch-all stays.
  return messages.map((message, i) => {
    const found = miner.match(scope, message) ?? learnt[i]!;
    return { template_id: found.id, template: found.template };
  });
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
