/** Time is injected: stages receive `now` from here, never from `new Date()`. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export function fixedClock(iso: string): Clock {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) throw new Error(`fixedClock: not an ISO date: ${iso}`);
  return { now: () => new Date(date) };
}
