import { any, anyIgnoringCase, BYPASS, type Needs } from './secret-prefilter.js';

/**
 * What each rule of `@secretlint/secretlint-rule-preset-recommend` needs in a text before it can report
 * anything (the prefilter's contract: secret-prefilter.ts), read off the rule's patterns in the version
 * below. A rule not listed here (a preset that gained one) bypasses the prefilter, and a test fails when
 * the installed preset is another version, so the table is read again before it is trusted.
 */
export const RULE_SET_VERSION = '12.0.0';

const URL = '://';

export const RULE_SET_NEEDS: Readonly<Record<string, Needs>> = {
  // Access key ids (prefixes, upper case), `(ACCOUNT|account|Account)_?(ID|id|Id)?` and `…(KEY|key|Key)`.
  '@secretlint/secretlint-rule-aws': [anyIgnoringCase('A3T', 'AKIA', 'AGPA', 'AIDA', 'AROA', 'AIPA', 'ANPA', 'ANVA', 'ASIA', 'account', 'key')],
  // Reports only for a `.p12` or `.json` source; ours has no extension. Cheap either way: it returns at once.
  '@secretlint/secretlint-rule-gcp': BYPASS,
  // `https?://…:x-oauth-basic@github.com/`, `_authToken=` (.npmrc), `npm_` + 36.
  '@secretlint/secretlint-rule-npm': [any('x-oauth-basic', '_authToken=', 'npm_')],
  '@secretlint/secretlint-rule-slack': [any('xoxb-', 'xoxp-', 'xapp-', 'xoxa-', 'xoxo-', 'xoxr-', URL)],
  '@secretlint/secretlint-rule-basicauth': [any(URL)],
  // Both shapes hold `T3BlbkFJ` (base64 of "OpenAI").
  '@secretlint/secretlint-rule-openai': [any('T3BlbkFJ')],
  '@secretlint/secretlint-rule-anthropic': [any('sk-ant-api0')],
  '@secretlint/secretlint-rule-groq': [any('gsk_')],
  '@secretlint/secretlint-rule-huggingface': [any('hf_')],
  '@secretlint/secretlint-rule-linear': [any('lin_api_')],
  '@secretlint/secretlint-rule-notion': [any('ntn_')],
  '@secretlint/secretlint-rule-privatekey': [any('-----BEGIN')],
  '@secretlint/secretlint-rule-sendgrid': [any('SG.')],
  '@secretlint/secretlint-rule-shopify': [any('shppa_', 'shpca_', 'shpat_', 'shpss_')],
  '@secretlint/secretlint-rule-github': [any('ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_')],
  '@secretlint/secretlint-rule-gitlab': [any('glpat-')],
  '@secretlint/secretlint-rule-grafana': [any('glc_', 'glsa_')],
  '@secretlint/secretlint-rule-1password': [any('ops_ey')],
  // mongodb(+srv)://, (jdbc:)mysql(x)://, postgres(ql):// (the `i` flag leaves `://` as it is).
  '@secretlint/secretlint-rule-database-connection-string': [any(URL)],
  '@secretlint/secretlint-rule-hashicorp-vault': [any('hvs.', 'hvb.', 'hvr.')],
  '@secretlint/secretlint-rule-vercel': [any('vcp_', 'vci_', 'vca_', 'vcr_', 'vck_')],
  '@secretlint/secretlint-rule-databricks': [any('dapi')],
  '@secretlint/secretlint-rule-docker': [any('dckr_pat_')],
  '@secretlint/secretlint-rule-figma': [any('figd_')],
};

/** A rule's needs: its entry, or BYPASS for a rule the table does not know. */
export function ruleSetNeeds(id: string): Needs {
  return Object.hasOwn(RULE_SET_NEEDS, id) ? RULE_SET_NEEDS[id]! : BYPASS;
}
