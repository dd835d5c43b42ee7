import type { PolicyRule, SafetyPolicy } from './policy.js';
import type { CommandDeny, CommandPolicy, SafetySwitch } from './command-policy.js';
import { buildDirProblem, hostProblem, normalBuildDir } from './policy-places.js';

/**
 * The bundled (shipped) policy is a floor under a repository's own: a repository may add rules and
 * tighten, never remove or weaken what the bundled policy blocks. By construction, the policy a run
 * checks drafts against holds every bundled blocking rule, deny rule, concept, switch and safeguard word
 * as shipped; where the repository's list is the one that widens when it grows (allowed verbs, safeguard
 * exceptions), only the words both policies list are kept. A repository rule that redefines a bundled one
 * is kept next to it under `<id>-repo` (it can only block more), one that makes it a warning is dropped.
 * The allowlists of places (build_dirs, hosts) may grow, by entries that name one place of their kind
 * (policy-places.ts): a build directory inside the repository, one host; any other entry is left out.
 * What the repository tried to leave out or weaken is said in one notice; nothing is an error.
 */
export interface FlooredPolicy {
  policy: SafetyPolicy;
  notices: string[];
}

export function withBundledFloor(repo: SafetyPolicy, bundled: SafetyPolicy): FlooredPolicy {
  const weakened: string[] = [];
  const rules = flooredRules(repo.rules, bundled.rules, weakened);
  const commands = flooredCommands(repo.commands, bundled.commands, weakened);
  const policy: SafetyPolicy = { version: 1, file: repo.file, rules, ...(commands ? { commands } : {}) };
  return { policy, notices: weakened.length === 0 ? [] : [floorNotice(repo.file, weakened)] };
}

function floorNotice(file: string, weakened: string[]): string {
  const shown = weakened.slice(0, 6).join(', ');
  const more = weakened.length > 6 ? ` and ${weakened.length - 6} more` : '';
  return `${file} leaves out or weakens what the bundled safety policy blocks (${shown}${more}): the bundled policy is a floor a repository's policy can add to but not lower, so these still apply. Add rules to your policy instead of removing them.`;
}

function flooredRules(repo: PolicyRule[], bundled: PolicyRule[], weakened: string[]): PolicyRule[] {
  const blocking = new Map(bundled.filter((rule) => rule.severity === 'block').map((rule) => [rule.id, rule]));
  const ids = new Set(repo.map((rule) => rule.id));
  const rules: PolicyRule[] = [];
  for (const rule of repo) {
    const floor = blocking.get(rule.id);
    if (!floor || sameValue(rule, floor)) rules.push(rule);
    else if (rule.severity === 'block') rules.push(floor, { ...rule, id: freeId(`${rule.id}-repo`, ids) });
    else (rules.push(floor), weakened.push(`rule ${rule.id} made a warning`));
  }
  for (const floor of blocking.values()) {
    if (!ids.has(floor.id)) (rules.push(floor), weakened.push(`rule ${floor.id}`));
  }
  return rules;
}

function flooredCommands(repo: CommandPolicy | undefined, bundled: CommandPolicy | undefined, weakened: string[]): CommandPolicy | undefined {
  if (!bundled) return repo;
  if (!repo) return (weakened.push('the commands section'), bundled);
  const union = (key: 'launchers' | 'wrappers' | 'concepts') => unionOf(repo[key], bundled[key], `commands.${key}`, weakened);
  const safeguards = repo.safeguards && bundled.safeguards
    ? {
        objects: unionOf(repo.safeguards.objects, bundled.safeguards.objects, 'safeguards.objects', weakened),
        defeats: unionOf(repo.safeguards.defeats, bundled.safeguards.defeats, 'safeguards.defeats', weakened),
        identities: unionOf(repo.safeguards.identities, bundled.safeguards.identities, 'safeguards.identities', weakened),
        except: commonOf(repo.safeguards.except, bundled.safeguards.except, 'safeguards.except', weakened),
      }
    : (bundled.safeguards ?? repo.safeguards);
  if (bundled.safeguards && !repo.safeguards) weakened.push('commands.safeguards');
  const remote = repo.remote_code && bundled.remote_code
    ? { fetch: unionOf(repo.remote_code.fetch, bundled.remote_code.fetch, 'remote_code.fetch', weakened), run: unionOf(repo.remote_code.run, bundled.remote_code.run, 'remote_code.run', weakened) }
    : (bundled.remote_code ?? repo.remote_code);
  if (bundled.remote_code && !repo.remote_code) weakened.push('commands.remote_code');
  const advice = {
    observe: commonOf(repo.advice.observe, bundled.advice.observe, 'advice.observe', weakened),
    act: commonOf(repo.advice.act, bundled.advice.act, 'advice.act', weakened),
    negatable: commonOf(repo.advice.negatable, bundled.advice.negatable, 'advice.negatable', weakened),
    protected: unionOf(repo.advice.protected, bundled.advice.protected, 'advice.protected', weakened),
    verbs: unionOf(repo.advice.verbs, bundled.advice.verbs, 'advice.verbs', weakened),
    secrets: unionOf(repo.advice.secrets, bundled.advice.secrets, 'advice.secrets', weakened),
    not_secrets: commonOf(repo.advice.not_secrets, bundled.advice.not_secrets, 'advice.not_secrets', weakened),
  };
  return {
    programs: flooredPrograms(repo.programs, bundled.programs, weakened),
    launchers: union('launchers'),
    wrappers: union('wrappers'),
    build_dirs: placesOf(repo.build_dirs, bundled.build_dirs, { problem: buildDirProblem, normal: normalBuildDir }, 'commands.build_dirs', weakened),
    hosts: placesOf(repo.hosts, bundled.hosts, { problem: hostProblem, normal: (host) => host.trim().toLowerCase() }, 'commands.hosts', weakened),
    advice,
    concepts: union('concepts'),
    ...(safeguards ? { safeguards } : {}),
    switches: flooredById<SafetySwitch>(repo.switches ?? [], bundled.switches ?? [], 'switch', weakened),
    ...(remote ? { remote_code: remote } : {}),
    deny: flooredById<CommandDeny>(repo.deny, bundled.deny, 'deny', weakened),
    // Allowlists widen as they grow: only the entries both policies list (the bundled one where the repository has none).
    ...allowlist('git_settings', repo, bundled, weakened),
    ...allowlist('env_allow', repo, bundled, weakened),
  };
}

function allowlist(key: 'git_settings' | 'env_allow', repo: CommandPolicy, bundled: CommandPolicy, weakened: string[]): Partial<CommandPolicy> {
  const mine = repo[key];
  const floor = bundled[key];
  if (mine === undefined && floor === undefined) return {};
  if (mine === undefined || floor === undefined) return { [key]: floor ?? mine };
  return { [key]: commonOf(mine, floor, `commands.${key}`, weakened) };
}

/** The repository's programs, except that one the bundled policy limits to subcommands cannot become `any`. */
function flooredPrograms(repo: CommandPolicy['programs'], bundled: CommandPolicy['programs'], weakened: string[]): CommandPolicy['programs'] {
  const programs: CommandPolicy['programs'] = Object.create(null);
  for (const [name, subcommands] of Object.entries(repo)) {
    const floor = bundled[name];
    const widened = subcommands === 'any' && Array.isArray(floor);
    if (widened) weakened.push(`programs.${name}: any`);
    programs[name] = widened ? floor : subcommands;
  }
  return programs;
}

/** Bundled entries first, as shipped; the repository's own after them (a redefined id as `<id>-repo`). */
function flooredById<T extends { id: string }>(repo: T[], bundled: T[], kind: string, weakened: string[]): T[] {
  const ids = new Set(bundled.map((entry) => entry.id));
  const repoIds = new Set(repo.map((entry) => entry.id));
  for (const entry of bundled) if (!repoIds.has(entry.id)) weakened.push(`${kind} ${entry.id}`);
  const own = repo.flatMap((entry) => {
    const floor = bundled.find((b) => b.id === entry.id);
    if (floor && sameValue(entry, floor)) return [];
    return [floor ? { ...entry, id: freeId(`${entry.id}-repo`, ids) } : (ids.add(entry.id), entry)];
  });
  return [...bundled, ...own];
}

function unionOf(repo: string[], bundled: string[], what: string, weakened: string[]): string[] {
  const missing = bundled.filter((word) => !repo.includes(word));
  if (missing.length > 0) weakened.push(`${what} without ${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', …' : ''}`);
  return [...repo, ...missing];
}

/** A repository's places (as the checks compare them), less those it may not add (the bundled policy's own always pass): each named with why. */
function placesOf(repo: string[], bundled: string[], place: { problem: (entry: string) => string | null; normal: (entry: string) => string }, what: string, weakened: string[]): string[] {
  const why = (entry: string) => (bundled.includes(entry) ? null : place.problem(entry));
  const refused = repo.filter((entry) => why(entry) !== null).map((entry) => `${JSON.stringify(entry)} (${why(entry)})`);
  if (refused.length > 0) weakened.push(`${what} adds ${refused.slice(0, 3).join(', ')}${refused.length > 3 ? ', …' : ''}`);
  return [...new Set(repo.filter((entry) => why(entry) === null).map(place.normal))];
}

/** Words that widen what passes: only those both policies list. */
function commonOf(repo: string[], bundled: string[], what: string, weakened: string[]): string[] {
  const added = repo.filter((word) => !bundled.includes(word));
  if (added.length > 0) weakened.push(`${what} adds ${added.slice(0, 3).join(', ')}${added.length > 3 ? ', …' : ''}`);
  return repo.filter((word) => bundled.includes(word));
}

function freeId(wanted: string, taken: Set<string>): string {
  let id = wanted;
  for (let n = 2; taken.has(id); n += 1) id = `${wanted}-${n}`;
  taken.add(id);
  return id;
}

function sameValue(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}
