/**
 * What worked next: after a failure, the next successful call in the same session, within a few calls,
 * of the same tool family. Counted per failure cluster (the fold's cluster key) and per call shape, with
 * the sessions it was seen in, so the writer can say "instead: `python -m pytest`" when it held in two
 * sessions or more. Memory is bounded: sessions waiting, shapes per cluster and sessions per shape.
 */
export interface Call {
  session: string;
  family: string;
  /** The cluster key of a failure; null for a success. */
  failure: string | null;
  /** The success's shape (see callShape); null when it has none worth citing. */
  shape: string | null;
}

import type { FollowUp } from '../model/cluster.js';

export type { FollowUp };

/** The first calls of each session in a range of lines, for the merge (see RecoveryTracker.absorb). */
export interface RecoveryState {
  followUps: [string, FollowUp[]][];
  heads: [string, Call[]][];
  /** A cap was reached in the range: it cannot be merged exactly. */
  full: boolean;
}

/** Calls after a failure that may still be its follow-up. */
export const FOLLOW_WINDOW = 3;
const MAX_WAITING = 10_000;
const MAX_SHAPES = 8;
const MAX_SESSIONS_KEPT = 20;

interface Waiting {
  key: string;
  family: string;
  left: number;
}

export class RecoveryTracker {
  private readonly waiting = new Map<string, Waiting>();
  private readonly followUps = new Map<string, Map<string, FollowUp>>();
  /** Weight a shape inherited from the one it replaced past MAX_SHAPES (see record). */
  private readonly inherited = new WeakMap<FollowUp, number>();
  /** Per session, its first FOLLOW_WINDOW calls (a range's fold keeps them for the merge). */
  private readonly heads = new Map<string, Call[]>();
  /** A cap turned something away: past it, the order of lines decides what is kept (no exact merge). */
  full = false;

  constructor(private readonly keepHeads = false) {}

  /** Whether no call can matter now: no failure waits and no first calls are kept (a success's session need not be read). */
  get idle(): boolean {
    return this.waiting.size === 0 && !this.keepHeads;
  }

  /** Whether a session's next call matters: a failure waits in it, or its first calls are kept. */
  wants(session: string): boolean {
    return this.waiting.has(session) || (this.keepHeads && (this.heads.get(session)?.length ?? 0) < FOLLOW_WINDOW);
  }

  /**
   * Whether the shape of a success of `family` in `session` can be recorded: it follows a failure of its
   * family, or it may be one of the session's first calls kept for the merge. Otherwise a null shape
   * gives the same result, and the caller need not build the call's event to find it.
   */
  needsShape(session: string, family: string): boolean {
    return this.keepHeads || this.waiting.get(session)?.family === family;
  }

  observe(call: Call): void {
    if (this.keepHeads) this.keepHead(call);
    this.step(call, true);
  }

  /** Follow-ups per failure cluster key, most common first. */
  result(): Map<string, FollowUp[]> {
    const out = new Map<string, FollowUp[]>();
    for (const [key, shapes] of this.followUps) out.set(key, [...shapes.values()].sort(byWeight));
    return out;
  }

  toState(): RecoveryState {
    return { followUps: [...this.result()], heads: [...this.heads], full: this.full };
  }

  /**
   * Adds a range folded apart (the lines after everything this tracker saw): its follow-ups as they are,
   * and its sessions' first calls replayed against the failures still waiting here, resolving them but
   * opening none (the range itself already followed its own failures).
   */
  absorb(state: RecoveryState): void {
    for (const [session, calls] of state.heads) for (const call of calls) if (this.waiting.has(session)) this.step(call, false);
    for (const [key, ups] of state.followUps) for (const up of ups) this.record(key, up.shape, up.count, up.sessions);
  }

  private step(call: Call, opens: boolean): void {
    const waiting = this.waiting.get(call.session);
    if (waiting) {
      if (call.failure === null && call.family === waiting.family) {
        if (call.shape !== null) this.record(waiting.key, call.shape, 1, [call.session]);
        this.waiting.delete(call.session);
      } else if (call.failure !== null && !opens) {
        // A failure in a range: the range waits on it itself; what waited here ends.
        this.waiting.delete(call.session);
      } else if (--waiting.left === 0) {
        this.waiting.delete(call.session);
      }
    }
    if (opens && call.failure !== null) {
      if (this.waiting.size < MAX_WAITING || this.waiting.has(call.session)) this.waiting.set(call.session, { key: call.failure, family: call.family, left: FOLLOW_WINDOW });
      else this.full = true;
    }
  }

  private keepHead(call: Call): void {
    const head = this.heads.get(call.session);
    if (head === undefined) {
      if (this.heads.size < MAX_WAITING) this.heads.set(call.session, [call]);
      else this.full = true;
    } else if (head.length < FOLLOW_WINDOW) {
      head.push(call);
    }
  }

  private record(key: string, shape: string, count: number, sessions: string[]): void {
    let shapes = this.followUps.get(key);
    if (shapes === undefined) this.followUps.set(key, (shapes = new Map()));
    let up = shapes.get(shape);
    if (up === undefined) {
      // Past MAX_SHAPES, a Space-Saving step: the lightest shape gives way and the new one inherits its
      // weight (not its count or sessions), so junk recoveries that came first cannot keep out the one
      // that keeps working. Past the cap the order matters: the fold can no longer be merged.
      const capped = shapes.size >= MAX_SHAPES;
      const inherited = capped ? dropLightest(shapes, this.inherited) : 0;
      if (capped) this.full = true;
      shapes.set(shape, (up = { shape, count: 0, sessions: [] }));
      if (inherited > 0) this.inherited.set(up, inherited);
    }
    up.count += count;
    // The smallest session ids, sorted: the same whatever order the lines were read in.
    up.sessions = sessions.length === 1 ? withSession(up.sessions, sessions[0]!) : mergeSessions(up.sessions, sessions);
  }
}

/** `sessions` (sorted, at most MAX_SESSIONS_KEPT) with one more: unchanged when it holds it or it sorts past a full list. */
function withSession(sessions: string[], session: string): string[] {
  if (sessions.includes(session)) return sessions;
  if (sessions.length >= MAX_SESSIONS_KEPT && session > sessions[sessions.length - 1]!) return sessions;
  return mergeSessions(sessions, [session]);
}

/** The smallest session ids of two lists, sorted: the same whatever order the lines were read in. */
export function mergeSessions(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])].sort().slice(0, MAX_SESSIONS_KEPT);
}

/** Follow-ups of several lists (templates merged, nights carried over), most common first, at most `max`. */
export function mergeFollowUps(lists: readonly (readonly FollowUp[])[], max = 3): FollowUp[] {
  const byShape = new Map<string, FollowUp>();
  for (const list of lists) {
    for (const up of list) {
      const seen = byShape.get(up.shape);
      byShape.set(up.shape, seen ? { shape: up.shape, count: seen.count + up.count, sessions: mergeSessions(seen.sessions, up.sessions) } : { ...up, sessions: [...up.sessions] });
    }
  }
  return [...byShape.values()].sort(byWeight).slice(0, max);
}

/** Drops the shape with the fewest calls (counting what it inherited; the first kept of equals); returns that weight. */
function dropLightest(shapes: Map<string, FollowUp>, inherited: WeakMap<FollowUp, number>): number {
  let lightest: FollowUp | undefined;
  let least = Number.POSITIVE_INFINITY;
  for (const up of shapes.values()) {
    const weight = up.count + (inherited.get(up) ?? 0);
    if (weight < least) [lightest, least] = [up, weight];
  }
  if (lightest) shapes.delete(lightest.shape);
  return lightest ? least : 0;
}

function byWeight(a: FollowUp, b: FollowUp): number {
  return b.sessions.length - a.sessions.length || b.count - a.count || (a.shape < b.shape ? -1 : a.shape > b.shape ? 1 : 0);
}

/**
 * The shape of a call worth citing as what worked: its leading words (a program, a subcommand, `-m` and
 * a module), at most three, each a plain word; no paths, values, other flags or anything with a digit.
 * Null when not even the first word is plain. The tool name stands in for a call without a summary.
 */
export function callShape(toolName: string, summary: string | undefined): string | null {
  if (summary === undefined || summary.trim() === '') return TOOL.test(toolName) ? toolName : null;
  const words: string[] = [];
  for (const word of summary.trim().split(/\s+/)) {
    const plain = words.length === 0 ? PROGRAM.test(word) : WORD.test(word) || (word === '-m' && words.length > 0);
    if (words.length === 3 || !plain) break;
    words.push(word);
  }
  return words.length === 0 || words.at(-1) === '-m' ? null : words.join(' ');
}

/** A tool's own name (`Read`, `mcp__github__list_prs`). */
const TOOL = /^[A-Za-z][A-Za-z0-9_.:-]{0,63}$/;
/** A program (`python3.11`, `npx`), never a path. */
const PROGRAM = /^[a-z][a-z0-9+-]*(?:\.[0-9]+)*$/;
/** A subcommand or module: letters, `_`, `:` and `-` only (no file names, values or numbers). */
const WORD = /^[A-Za-z][A-Za-z_:-]{0,39}$/;
