/**
 * The parts of a rule text that decide whether two rules can say the same thing: the tool it is about
 * and its advice (what to do), when the text has the offline writer's shape. Claude's rules and human
 * lines have no fixed shape: their tool and advice are null, and the whole text is compared.
 */
export interface RuleParts {
  tool: string | null;
  /** What the rule tells the agent to do; null for a bare fact ("`x` fails with `…` (3 times in 2 sessions)."). */
  advice: string | null;
}

const TOOL = /^\s*(?:`([^`\n]{1,120})`\s+fails\b|(\S{1,120})\s+ran slow\b)/;
/** The counts frame, after which the advice (if any) follows a colon or semicolon. */
const FRAME = /\(\d+ times? in \d+ sessions?[^)]*\)|ran slow \d+ times? \([^)]*\)/;

export function ruleParts(text: string): RuleParts {
  const tool = TOOL.exec(text);
  if (!tool) return { tool: null, advice: null };
  const frame = FRAME.exec(text);
  const rest = frame ? text.slice(frame.index + frame[0].length) : '';
  const advice = /^\s*[:;]\s*(.+?)\.?\s*$/.exec(rest)?.[1] ?? null;
  return { tool: tool[1] ?? tool[2]!, advice: advice && advice.trim() !== '' ? advice : null };
}
