import { redact } from '../safety/redact.js';
import { isShellTool, toolFamily } from './tool-family.js';

/** What the lifecycle needs to know about a night's telemetry besides its clusters. */
export interface UsageSummary {
  /** Tool name -> calls (successes and failures). */
  tools: Record<string, number>;
  /**
   * Tool family (as clusters and rules name it: `pytest` for `Bash: python -m pytest`, `mcp__github`) ->
   * calls: the denominator of a rule's failures per 100 calls. A shell call's family is read from its
   * command line (input_summary), not from its error text as a failure's is: the two agree for the
   * ordinary case, where the failing program is the one the line runs.
   */
  families: Record<string, number>;
  /** Rule id -> what tonight adds to its "did it work" counters (ingest/rule-effect.ts); absent when no rule was followed. */
  effects?: Record<string, RuleEffectNight>;
  /** Rule id -> how often agents listed it in `memory_refs`, and when last. */
  refs: Record<string, { count: number; last: string }>;
  /** Rule id -> how often a hook put it in front of the agent, by kind, and in which sessions (exposures). */
  exposures: Record<string, RuleExposures>;
}

/**
 * One night's exposures of a rule: `session_start` (injected when a session began), `reminder` (shown
 * next to a failure of its cluster), when last, and the sessions (first MAX_EXPOSED_SESSIONS, sorted),
 * so that a rule's failures can be compared between sessions that saw it and sessions that did not.
 */
export interface RuleExposures {
  session_start: number;
  reminder: number;
  last: string;
  sessions: string[];
}

/**
 * One night of a rule in front of the agent: calls of its family made in a session after it was shown
 * there and how many were failures of its cluster; after a reminder, whether the next call of its
 * family in that session succeeded.
 */
export interface RuleEffectNight {
  exposed_calls: number;
  exposed_failures: number;
  reminder_next_ok: number;
  reminder_next_failed: number;
}

export const EXPOSURE_KINDS = ['session_start', 'reminder'] as const;
export type ExposureKind = (typeof EXPOSURE_KINDS)[number];
/** Sessions kept per rule and night (a flood of invented sessions must not grow memory). */
export const MAX_EXPOSED_SESSIONS = 200;

interface ExposureCount {
  session_start: number;
  reminder: number;
  last: number;
  sessions: Set<string>;
}

const RULE_ID = /^r-[0-9a-f]{4,16}$/;
const MAX_KEYS = 10_000;

/**
 * Counts calls per tool and rule accesses per rule id, bounded: past MAX_KEYS distinct names, new ones
 * are not counted (a flood of invented tool names or ids must not grow memory).
 */
export class UsageCounter {
  /** Tool name -> its call count, in a box so a call costs one lookup. */
  private readonly tools = new Map<string, { calls: number }>();
  /** A shell call's family (raw, from its command line) -> its calls; other tools' families come from `tools`. */
  private readonly shellFamilies = new Map<string, { calls: number }>();
  private readonly refs = new Map<string, { count: number; last: number }>();
  private readonly exposures = new Map<string, ExposureCount>();

  /** One call of the tool named `toolName` (raw). */
  addCall(toolName: string): void {
    const tool = this.tools.get(toolName);
    if (tool !== undefined) tool.calls += 1;
    else if (this.tools.size < MAX_KEYS) this.tools.set(toolName, { calls: 1 });
  }

  /** One call of a shell tool, by the family its command line names (see toolFamily). */
  addShellCall(family: string): void {
    const seen = this.shellFamilies.get(family);
    if (seen !== undefined) seen.calls += 1;
    else if (this.shellFamilies.size < MAX_KEYS) this.shellFamilies.set(family, { calls: 1 });
  }

  /** The rule ids a call at `ts` listed in its memory_refs. */
  addRefs(refs: string[], ts: number): void {
    for (const id of refs) {
      if (!RULE_ID.test(id)) continue;
      const seen = this.refs.get(id);
      if (seen) {
        seen.count += 1;
        if (ts > seen.last) seen.last = ts;
      } else if (this.refs.size < MAX_KEYS) {
        this.refs.set(id, { count: 1, last: ts });
      }
    }
  }

  /**
   * A hook's exposure line: the rules it put in front of the agent. A reminder (the rule shown because
   * its failure just happened) is an access, like memory_refs, and reinforces the rule. Injection at
   * session start does not reset the rule's decay: every session shows the top of the list, and that
   * would keep those rules at full weight for as long as the agent is used, whether or not they still
   * help; the lifecycle counts it as an access for the rule's importance only (lifecycle-evaluate.ts).
   * An unknown kind counts as an access: a newer hook's kind must not break an older night.
   */
  addExposure(kind: string, refs: string[], session: string | undefined, ts: number): void {
    if (kind !== 'session_start') this.addRefs(refs, ts);
    if (kind !== 'session_start' && kind !== 'reminder') return;
    for (const id of refs) {
      if (!RULE_ID.test(id)) continue;
      let seen = this.exposures.get(id);
      if (seen === undefined) {
        if (this.exposures.size >= MAX_KEYS) continue;
        this.exposures.set(id, (seen = { session_start: 0, reminder: 0, last: ts, sessions: new Set() }));
      }
      seen[kind] += 1;
      if (ts > seen.last) seen.last = ts;
      if (session !== undefined && session.length <= 200 && seen.sessions.size < MAX_EXPOSED_SESSIONS) seen.sessions.add(session);
    }
  }

  /** A name or id was turned away at the cap. */
  get full(): boolean {
    return this.tools.size >= MAX_KEYS || this.shellFamilies.size >= MAX_KEYS || this.refs.size >= MAX_KEYS || this.exposures.size >= MAX_KEYS;
  }

  /** Plain data for another thread, in first-seen order. */
  toState(): UsageState {
    return {
      tools: [...this.tools].map(([name, tool]) => [name, tool.calls]),
      shellFamilies: [...this.shellFamilies].map(([name, family]) => [name, family.calls]),
      refs: [...this.refs].map(([id, seen]) => [id, { ...seen }]),
      exposures: [...this.exposures].map(([id, seen]) => [id, { ...seen, sessions: [...seen.sessions] }]),
    };
  }

  /**
   * Whether adding `other` (counted over the lines after this counter's) gives exactly what one counter
   * over both would: not when either side reached the cap, since past it the order decides what counts.
   */
  canMerge(other: UsageState): boolean {
    return this.tools.size + other.tools.length < MAX_KEYS && this.shellFamilies.size + other.shellFamilies.length < MAX_KEYS && this.refs.size + other.refs.length < MAX_KEYS
      && this.exposures.size + other.exposures.length < MAX_KEYS && other.exposures.every(([id, seen]) => (this.exposures.get(id)?.sessions.size ?? 0) + seen.sessions.length < MAX_EXPOSED_SESSIONS);
  }

  merge(other: UsageState): void {
    for (const [name, calls] of other.tools) {
      const tool = this.tools.get(name);
      if (tool) tool.calls += calls;
      else this.tools.set(name, { calls });
    }
    for (const [name, calls] of other.shellFamilies) {
      const family = this.shellFamilies.get(name);
      if (family) family.calls += calls;
      else this.shellFamilies.set(name, { calls });
    }
    for (const [id, seen] of other.refs) {
      const mine = this.refs.get(id);
      if (mine) {
        mine.count += seen.count;
        if (seen.last > mine.last) mine.last = seen.last;
      } else {
        this.refs.set(id, { ...seen });
      }
    }
    for (const [id, seen] of other.exposures) {
      const mine = this.exposures.get(id);
      if (!mine) {
        this.exposures.set(id, { ...seen, sessions: new Set(seen.sessions) });
        continue;
      }
      mine.session_start += seen.session_start;
      mine.reminder += seen.reminder;
      if (seen.last > mine.last) mine.last = seen.last;
      for (const session of seen.sessions) if (mine.sessions.size < MAX_EXPOSED_SESSIONS) mine.sessions.add(session);
    }
  }

  /** Tool names go through the same cleaner as clusters, so they match the ledger's tool_name. */
  finish(cleanToolName: (name: string) => string): UsageSummary {
    // No prototype: a tool named `constructor` or `toString` counts from 0, not from an inherited function.
    const tools = Object.create(null) as Record<string, number>;
    const families = Object.create(null) as Record<string, number>;
    // Families are kept as read, never stored or shown: a rule's tool_name (an identifier) finds its calls
    // here; a name the identifier grammar replaced finds none, and its rates say "not enough calls".
    const addFamily = (family: string, calls: number) => {
      families[family] = (families[family] ?? 0) + calls;
    };
    for (const [name, { calls }] of this.tools) {
      const clean = cleanToolName(name);
      tools[clean] = (tools[clean] ?? 0) + calls;
      // A shell tool's calls were counted by the family of each command line (addShellCall).
      if (!isShellTool(name)) addFamily(toolFamily(name), calls);
    }
    for (const [family, { calls }] of this.shellFamilies) addFamily(family, calls);
    const refs = Object.create(null) as UsageSummary['refs'];
    for (const [id, seen] of [...this.refs].sort(([a], [b]) => (a < b ? -1 : 1))) refs[id] = { count: seen.count, last: new Date(seen.last).toISOString() };
    const exposures: UsageSummary['exposures'] = {};
    for (const [id, seen] of [...this.exposures].sort(([a], [b]) => (a < b ? -1 : 1))) {
      exposures[id] = { session_start: seen.session_start, reminder: seen.reminder, last: new Date(seen.last).toISOString(), sessions: [...new Set([...seen.sessions].map(redact))].sort() };
    }
    return { tools, families, refs, exposures };
  }
}

export interface UsageState {
  tools: [string, number][];
  shellFamilies: [string, number][];
  refs: [string, { count: number; last: number }][];
  exposures: [string, { session_start: number; reminder: number; last: number; sessions: string[] }][];
}

export function emptyUsage(): UsageSummary {
  return { tools: Object.create(null) as Record<string, number>, families: Object.create(null) as Record<string, number>, refs: Object.create(null) as UsageSummary['refs'], exposures: Object.create(null) as UsageSummary['exposures'] };
}
