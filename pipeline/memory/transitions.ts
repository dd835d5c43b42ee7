import { errors } from '../model/errors.js';
import type { RuleState } from './state.js';

/**
 * The rule state machine. `none` is a rule that does not exist yet. Every change of state goes through
 * `checkTransition`, so a transition missing from this table can never happen.
 */
export type FromState = RuleState | 'none' | 'quarantined';

export const TRANSITIONS: Readonly<Record<FromState, readonly RuleState[]>> = {
  none: ['active'],
  quarantined: ['active'],
  active: ['decaying', 'archived', 'pinned', 'rejected'],
  decaying: ['active', 'archived', 'pinned', 'rejected'],
  archived: ['active', 'expired', 'pinned'],
  expired: ['active', 'deleted', 'pinned'],
  // pinned → archived only when the safety policy blocks the rule: safety comes before a pin.
  pinned: ['active', 'archived', 'rejected'],
  deleted: [],
  rejected: [],
};

export function isAllowed(from: FromState, to: RuleState): boolean {
  return TRANSITIONS[from].includes(to);
}

/** Throws a clear error for a transition the lifecycle does not allow. */
export function checkTransition(id: string, from: FromState, to: RuleState): void {
  if (isAllowed(from, to)) return;
  const allowed = TRANSITIONS[from];
  throw errors.usage(
    `${id} is ${from}: it cannot become ${to}. ${allowed.length > 0 ? `From ${from} a rule can become: ${allowed.join(', ')}.` : `A ${from} rule does not change any more.`}`,
    { id, from, to },
  );
}
