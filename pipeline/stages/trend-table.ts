import type { Trends } from '../memory/trends.js';

const NIGHTS_SHOWN = 7;

/**
 * The compact trend for the report (the nightly pull request's body, which GitHub renders): the last
 * nights' failures and what the lifecycle did on each. Empty before the first recorded night.
 */
export function trendTable(trends: Trends): string {
  const nights = trends.nights.slice(-NIGHTS_SHOWN);
  if (nights.length === 0) return '';
  const byRun = new Map(trends.runs.map((r) => [r.run, r]));
  const rows = nights.map((n) => {
    const r = byRun.get(n.run);
    return `| ${n.time.slice(0, 10)} | ${n.failures} | ${n.slow} | ${r?.added ?? 0} | ${r?.archived ?? 0} | ${r?.restored ?? 0} |`;
  });
  const first = nights[0]!.failures;
  const last = nights[nights.length - 1]!.failures;
  const direction = nights.length < 2 ? '' : last < first ? `, falling (${first} → ${last})` : last > first ? `, rising (${first} → ${last})` : `, flat (${first})`;
  return [
    `Failures over the last ${nights.length === 1 ? 'night' : `${nights.length} nights`}${direction}:`,
    '',
    '| night | failures | slow calls | rules added | archived | restored |',
    '|---|---:|---:|---:|---:|---:|',
    ...rows,
    '',
  ].join('\n');
}
