import type { RunContext } from '../context.js';
import type { DraftRule, RuleTarget } from '../synth/port.js';
import type { PromotedCluster } from './gate.js';

export interface Synthesized {
  drafts: DraftRule[];
}

/** synthesize: one draft rule per promoted cluster, through the Synthesizer port. */
export async function synthesize<I extends { promoted: PromotedCluster[] }>(input: I, ctx: RunContext): Promise<I & Synthesized> {
  const drafts: DraftRule[] = [];
  for (const cluster of input.promoted) {
    drafts.push(await ctx.synthesizer.draft({ cluster, target: targetFor(cluster.tool_name, ctx.settings.routing) }));
  }
  return { ...input, drafts };
}

export function targetFor(toolName: string, routing: Record<string, string>): RuleTarget {
  const skill = Object.hasOwn(routing, toolName) ? routing[toolName] : undefined;
  return skill ? { kind: 'skill', skill } : { kind: 'memory' };
}

export function targetKey(target: RuleTarget): string {
  return target.kind === 'memory' ? 'memory' : `skill:${target.skill}`;
}
