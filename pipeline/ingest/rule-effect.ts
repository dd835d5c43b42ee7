import type { HookRule } from '../memory/hook-index.js';
import { findReminder } from '../memory/reminder.js';
import type { TemplateMinerState } from '../templates/miner-state.js';
import type { TelemetryEvent } from '../telemetry/event.js';
import type { RuleEffectNight } from '../telemetry/usage.js';
import { failureKeyOf } from './failure-key.js';

/** The rules whose exposures a night follows: failure rules in memory, keyed as the hook keys them. */
export interface RuleEffectInput {
  rules: Record<string, HookRule>;
  templates: TemplateMinerState | undefined;
}

/** Sessions followed per night (a flood of invented sessions must not grow memory; past it, not followed). */
const MAX_SESSIONS = 10_000;

/**
 * One night's "did it work" for the rules in memory, from the hooks' exposure lines and the calls around
 * them (see memory/call-rates.ts for how the lifecycle adds it up):
 * - from the moment a rule is put in front of the agent in a session (injected at session start, or
 *   reminded after a failure), every call of its tool family in that session is an exposed call, and a
 *   failure of its cluster (matched as the hook matches it) an exposed failure;
 * - after a reminder, the next call of the rule's family in that session succeeded or failed.
 * Calls are followed only in sessions that saw a rule, so a night without exposure lines costs nothing.
 */
export class RuleEffectTally {
  private readonly exposed = new Map<string, Set<string>>();
  /** Session -> the rules reminded there whose family's next call is awaited, and that family. */
  private readonly waiting = new Map<string, { family: string; rules: string[] }>();
  private readonly nights = new Map<string, RuleEffectNight>();
  /** A session was not followed at the cap. */
  full = false;

  constructor(private readonly input: RuleEffectInput) {}

  /** Whether any session is followed: a call's session need not be read otherwise. */
  get active(): boolean {
    return this.exposed.size > 0;
  }

  /** An exposure line: `rules` were put in front of the agent in `session`. */
  exposure(kind: string, rules: readonly string[], session: string | undefined): void {
    if (session === undefined) return;
    for (const id of rules) {
      const rule = this.input.rules[id];
      if (rule === undefined) continue;
      let shown = this.exposed.get(session);
      if (shown === undefined) {
        if (this.exposed.size >= MAX_SESSIONS) {
          this.full = true;
          return;
        }
        this.exposed.set(session, (shown = new Set()));
      }
      shown.add(id);
      if (kind !== 'reminder') continue;
      const waiting = this.waiting.get(session);
      if (waiting?.family === rule.tool_name) waiting.rules.push(id);
      else this.waiting.set(session, { family: rule.tool_name, rules: [id] });
    }
  }

  /**
   * A call of `family` (cleaned, as rules name it) in `session`; `failure` is its event when it failed.
   * The failure is matched to a rule only when a rule of its family was shown in the session.
   */
  call(session: string, family: string, failure: TelemetryEvent | null): void {
    const shown = this.exposed.get(session);
    if (shown === undefined) return;
    const waiting = this.waiting.get(session);
    if (waiting !== undefined && waiting.family === family) {
      for (const id of waiting.rules) this.night(id)[failure === null ? 'reminder_next_ok' : 'reminder_next_failed'] += 1;
      this.waiting.delete(session);
    }
    let matched: string | null | undefined;
    for (const id of shown) {
      if (this.input.rules[id]!.tool_name !== family) continue;
      const night = this.night(id);
      night.exposed_calls += 1;
      if (failure === null) continue;
      matched ??= findReminder(this.input.rules, failureKeyOf(failure), this.input.templates)?.id ?? null;
      if (matched === id) night.exposed_failures += 1;
    }
  }

  /** Per rule id, sorted: what tonight adds to its counters. */
  finish(): Record<string, RuleEffectNight> {
    const out: Record<string, RuleEffectNight> = {};
    for (const id of [...this.nights.keys()].sort()) out[id] = { ...this.nights.get(id)! };
    return out;
  }

  private night(id: string): RuleEffectNight {
    let night = this.nights.get(id);
    if (night === undefined) this.nights.set(id, (night = { exposed_calls: 0, exposed_failures: 0, reminder_next_ok: 0, reminder_next_failed: 0 }));
    return night;
  }
}
