import { sanitizeRuleText } from './memory-md.js';
import { IN_ARCHIVE, type LedgerEntry } from './state.js';

/**
 * The archive file (memory/archive.md by default): rules moved out of MEMORY.md and skills/, readable in
 * a pull request. Rendered from the ledger alone (sorted, no clock), so the same ledger always gives the
 * same bytes; the ledger stays the source of truth for restoring a rule's text and metadata.
 */
export function renderArchive(rules: Iterable<LedgerEntry>): string {
  const kept = [...rules].filter((rule) => IN_ARCHIVE.includes(rule.state));
  const section = (state: 'archived' | 'expired') =>
    kept
      .filter((rule) => rule.state === state)
      .sort((a, b) => ((a.state_since ?? '') < (b.state_since ?? '') ? -1 : (a.state_since ?? '') > (b.state_since ?? '') ? 1 : a.id < b.id ? -1 : 1))
      .map(renderEntry);
  const archived = section('archived');
  const expired = section('expired');
  return [
    '# Archived rules',
    '',
    'Derived rules sleep-cycle moved out of memory because they were no longer reinforced (or to keep',
    'MEMORY.md under its line ceiling). A recurrence of a rule\'s failure restores it automatically;',
    '`sleep-cycle restore <id>` restores it by hand. This file is written by sleep-cycle from its ledger.',
    '',
    `## Archived (${archived.length})`,
    '',
    ...(archived.length > 0 ? [...archived, ''] : []),
    `## Expired (${expired.length}): deleted after expired_retention_days`,
    '',
    ...(expired.length > 0 ? [...expired, ''] : []),
  ].join('\n');
}

function renderEntry(rule: LedgerEntry): string {
  const since = (rule.state_since ?? rule.created).slice(0, 10);
  const facts = [
    `${rule.state} ${since}`,
    `from ${rule.target}`,
    `created ${rule.created.slice(0, 10)}`,
    `last reinforced ${(rule.last_reinforced ?? rule.created).slice(0, 10)}`,
    `weight ${(rule.weight ?? 0).toFixed(2)}`,
    `${rule.tool_name}${rule.error_category ? `/${rule.error_category}` : ''} seen ${rule.provenance.count + rule.hits} times`,
  ];
  if (rule.archive_reason) facts.push(sanitizeRuleText(rule.archive_reason));
  return `- \`${rule.id}\` ${sanitizeRuleText(rule.text)}\n  <sub>${facts.join(' · ').replace(/[<>]/g, '')}</sub>`;
}

/** Ids the archive file lists (as `- \`r-…\``), whatever their state in the ledger. */
export function archivedIds(text: string | undefined): Set<string> {
  return new Set(text === undefined ? [] : [...text.matchAll(/^- `(r-[0-9a-f]{4,16})`/gm)].map((match) => match[1]!));
}
