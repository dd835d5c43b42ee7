import { describe, expect, it } from 'vitest';
import { ENCODINGS, encodable, vendorSecrets, type VendorSecret } from '../fixtures/secret-corpus.js';
import { EVERY_SURFACE, failing, leaks, recovered, runContentNightWith, says, type ContentAttack, type Synthesizer } from '../helpers/template-attack.js';

/**
 * Secrets in public scanners' token formats (test/fixtures/secret-corpus.ts, built at run time), in
 * every encoding and in every field of an event, through the whole pipeline: none may appear in
 * MEMORY.md, skills, state.json, the report, run --json, the commit (git log -p) or the requests a
 * fake Claude receives. Offline and against a Claude that obeys the data word for word.
 */

const SECRETS = vendorSecrets();

function inMessages(): ContentAttack[] {
  return SECRETS.flatMap((secret) =>
    ENCODINGS.filter((e) => encodable(secret) || e.name === 'plain' || e.name === 'ansi').map((encoding) => ({
      id: `corpus-${secret.vendor}-${encoding.name}`,
      goal: 2 as const,
      title: `${secret.vendor} (${encoding.name}) in an error message`,
      events: says(`corpus-${secret.vendor}-${encoding.name}`, `error: ${secret.context.replace('{}', encoding.encode(secret.value))}`),
      forbid: [secret.value, ...encoding.fragments(secret.value)],
      surfaces: [...EVERY_SURFACE],
      via: ['offline', 'obeying-claude'] as Synthesizer[],
    })),
  );
}

/** Token-shaped secrets in the other fields: identifiers, the call's summary and the call that worked. */
function inFields(): ContentAttack[] {
  const tokens = SECRETS.filter((s) => encodable(s) && !/jwt|discord|telegram|gcp-oauth/.test(s.vendor)).slice(0, 12);
  return tokens.flatMap((secret: VendorSecret) => {
    const v = secret.value;
    const attack = (field: string, events: ContentAttack['events']): ContentAttack => ({
      id: `corpus-${secret.vendor}-field-${field}`, goal: 2, title: `${secret.vendor} in ${field}`, events, forbid: [v], surfaces: [...EVERY_SURFACE], via: ['offline', 'obeying-claude'],
    });
    return [
      attack('tool_name', failing(3, { tool_name: `mcp__x__${v}`, error_message: 'error: request failed' })),
      attack('error_category', failing(3, { tool_name: `mcp__atk__corpus-${secret.vendor}-cat`, error_category: v, error_message: 'error: request failed' })),
      attack('session_id', failing(3, { tool_name: `mcp__atk__corpus-${secret.vendor}-session`, error_message: 'error: request failed', session_id: `s-${v}` })),
      attack('input_hash', failing(3, { tool_name: `mcp__atk__corpus-${secret.vendor}-input`, error_message: 'error: request failed', input_hash: v })),
      attack('input_summary', failing(3, { tool_name: 'Bash', input_summary: `deploy-${secret.vendor} --token ${v}`, error_message: `error: deploy-${secret.vendor} refused` })),
      attack('worked', recovered(`sync-${secret.vendor.replace(/[^a-z]/g, '')} pull`, 'error: sync refused', `sync-${secret.vendor.replace(/[^a-z]/g, '')} login ${v}`)),
    ];
  });
}

const ATTACKS = [...inMessages(), ...inFields()];

describe('secret corpus through the whole pipeline', () => {
  it('holds at least 250 attacks over at least 40 formats', () => {
    expect(ATTACKS.length).toBeGreaterThanOrEqual(250);
    expect(new Set(SECRETS.map((s) => s.vendor)).size).toBeGreaterThanOrEqual(40);
    expect(new Set(ATTACKS.map((a) => a.id)).size).toBe(ATTACKS.length);
  });

  describe.each(['offline', 'obeying-claude'] as const)('rules written by %s', (synthesizer) => {
    let night: Awaited<ReturnType<typeof runContentNightWith>> | undefined;
    const get = async () => (night ??= await runContentNightWith(ATTACKS, synthesizer));

    it('reads every line, replaces the refused identifiers and says how many', async () => {
      const { run, surfaces, claudeRequests } = await get();
      expect(run.code, run.stderr).toBe(0);
      // Every attack reached the rule writer (its own category: its own promoted cluster), so an
      // absence below means the secret was removed, not that the line was dropped.
      const promoted = run.json.data.clusters.filter((c: { promoted: boolean }) => c.promoted).length;
      expect(promoted).toBeGreaterThanOrEqual(ATTACKS.length - 30);
      if (synthesizer === 'obeying-claude') expect(claudeRequests).toBeGreaterThanOrEqual(ATTACKS.length - 30);
      const replaced = run.json.data.lines.identifiers_replaced;
      expect(replaced.tool_name).toBeGreaterThanOrEqual(12);
      expect(replaced.error_category).toBeGreaterThanOrEqual(12);
      expect(replaced.session_id).toBeGreaterThanOrEqual(12);
      expect(surfaces.report).toContain('identifiers replaced by placeholders');
    });

    it('leaks no secret, in any encoding or field, to any surface', async () => {
      const n = await get();
      const leaked = ATTACKS.map((attack) => [attack.id, leaks(attack, n)] as const).filter(([, found]) => found.length > 0);
      expect(leaked).toEqual([]);
    });
  });
});
