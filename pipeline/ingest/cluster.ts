import { isLineLocal, redact } from '../safety/redact.js';
import type { TelemetryEvent } from '../telemetry/event.js';
import { maskHomePaths, signatureKey } from '../templates/signature.js';
import { maskMessage, maskVariables } from '../templates/line-mask.js';
import { isShellTool, toolFamily } from '../telemetry/tool-family.js';
import { BoundedMemo } from './bounded-memo.js';
import { FailureLines } from './failure-lines.js';
import { DistinctCounter, type DistinctState } from './distinct.js';
import { fnv1a, mix32 } from '../model/hash.js';
import { SignatureCounter, type HashBudget, type SignatureState } from './signature-counter.js';
import { clusterId, type Cluster, type ClusterKind, type EventRef, type Evidence } from '../model/cluster.js';
import { LightestFirst } from '../templates/lightest-first.js';
import { IdentifierGuard, safeIdentifier } from '../safety/identifier.js';

export interface ClusterLimits {
  sampleSize: number;
  /**
   * Most clusters a night keeps. Past it the builder is a Space-Saving sketch: a new cluster replaces the
   * lightest one (whose events are counted as dropped) and inherits its weight, so noise that never
   * repeats cannot keep out a failure that does: any cluster with more than events/maxClusters events
   * is kept, and its count is exact unless it was once dropped (then it is short by at most that bound).
   */
  maxClusters?: number;
  /** Distinct signatures counted per cluster, first come (default 32; a worker's fold keeps more). */
  maxSignatures?: number;
  /**
   * Days kept per cluster, the newest (default: all). The gate only reads days inside window_days, so a
   * log whose timestamps span years cannot grow a cluster with a day per event; `count` keeps them all.
   */
  daysKept?: number;
  /**
   * Per cluster key, the signatures the lines before these already settled (their cluster was full):
   * only those are counted here, as one builder over all the lines would.
   */
  settledSignatures?: Record<string, string[]>;
  /**
   * A range's fold: past maxSignatures, further signatures are still counted, by a 52-bit hash (up to
   * MAX_HASHED_SIGNATURES per builder), so a merge can count the night's first signatures exactly.
   */
  hashOverflowSignatures?: boolean;
}

/** A cluster's accumulator as plain data for another thread (see ClusterBuilder.merge). */
export interface ClusterState {
  key: string;
  id: string;
  /** A failure cluster's masked error line (the night's clusters are keyed by it); null for slow ones. */
  line: string | null;
  kind: ClusterKind;
  tool: string;
  category: string | null;
  count: number;
  inputs: DistinctState;
  sessions: DistinctState;
  first: number;
  last: number;
  days: [number, number][];
  samples: { priority: number; event: TelemetryEvent; ref: EventRef; ts: number }[];
  signatures: SignatureState;
  baseline: number | null;
}

const KEPT_IDS = 50;
/** Distinct inputs and sessions are counted exactly up to this many per cluster, then estimated. */
const DISTINCT_EXACT = 1024;
const MAX_TRACKED = 10_000;
const MAX_SIGNATURES = 32;
/** Cluster keys memoized per builder, and the longest raw tool name + category memoized. */
const MAX_MEMO_KEYS = 4096;
const MAX_MEMO_NAME = 256;
/** Bounds a range fold's hashed signatures (16 bytes or so each); past it, its merge is refused. */
const MAX_HASHED_SIGNATURES = 200_000;

interface Accumulator {
  id: string;
  line: string | null;
  kind: ClusterKind;
  tool: string;
  category: string | null;
  count: number;
  inputs: DistinctCounter;
  sessions: DistinctCounter;
  first: number;
  last: number;
  days: Map<number, number>;
  /** Bottom-k sample by a hash of the line's position: bounded, deterministic, order-independent. */
  samples: { priority: number; event: TelemetryEvent; ref: EventRef; ts: number }[];
  signatures: SignatureCounter;
  baseline: number | null;
  /** Weight inherited from the cluster it replaced past max_clusters (Space-Saving's error bound); 0 before. */
  inherited: number;
  /** Order of admission: of two equally light clusters the older one goes first. */
  seq: number;
}

/** Groups candidate events into clusters as they stream past; memory is bounded per cluster. */
export class ClusterBuilder {
  private readonly clusters = new Map<string, Accumulator>();
  /** Raw tool name → raw category ('' for none) → cluster key; and raw tool name → slow cluster key. */
  private readonly failureKeys = new Map<string, Map<string, string>>();
  private readonly slowKeys = new Map<string, Map<string, string>>();
  private memoKeys = 0;
  /** File name → its hash, for sample priorities (a night reads a few files). */
  private readonly fileHashes = new Map<string, number>();
  /** Some cluster turned a signature away uncounted: this builder's state cannot be merged exactly. */
  signaturesDropped = false;
  /** Signatures all clusters may still count by hash (hashOverflowSignatures). */
  private readonly hashBudget: HashBudget = { left: MAX_HASHED_SIGNATURES };
  /** Per message: its signature key, its masked error line, and the families of the commands that gave it. */
  private readonly messages = new BoundedMemo<KnownMessage>();
  private readonly failureLines = new FailureLines();
  /** Events of clusters dropped past `maxClusters` to make room for heavier ones (a pathological night). */
  overflow = 0;
  /** Clusters dropped past `maxClusters`. */
  evicted = 0;
  /** The lightest cluster first; made when the night first reaches max_clusters. */
  private lightest: LightestFirst<string> | null = null;
  private admitted = 0;

  constructor(
    private readonly limits: ClusterLimits,
    private readonly ids: IdentifierGuard = new IdentifierGuard(),
    private readonly toolName: (raw: string) => string = toolNameCleaner(ids),
  ) {}

  /** Counts an event in its cluster; the cluster's key and tool family. */
  add(kind: ClusterKind, event: TelemetryEvent, ts: number, ref: EventRef, baseline: number | null = null): { key: string; tool: string } {
    // A failure's cluster is its tool, category and masked error line (templates are mined from those lines).
    const message = event.error_message;
    // Per message, once: its signature key and the line a template is mined from (see FailureLines).
    const known = kind === 'failure' && message ? this.messages.get(message, () => knownMessage(message, this.failureLines)) : null;
    const signature = known?.signature ?? null;
    const line = kind === 'failure' ? (known?.line ?? '') : null;
    // A shell tool's failures belong to the program that failed (its family), named per call.
    const shellFamily = kind === 'failure' && isShellTool(event.tool_name) ? this.shellFamily(event, known === null ? undefined : (known.families ??= new Map())) : null;
    const base = shellFamily === null ? this.mapKey(kind, event) : `failure\u0000${shellFamily}\u0000${failureCategory(event, this.ids)}`;
    const mapKey = line === null ? base : withLine(base, line, known);
    let acc = this.clusters.get(mapKey);
    const opened = !acc;
    if (!acc) {
      const category = kind === 'failure' ? failureCategory(event, this.ids) : null;
      const tool = shellFamily ?? this.toolName(kind === 'failure' ? toolFamily(event.tool_name) : event.tool_name);
      const inherited = this.clusters.size >= (this.limits.maxClusters ?? Number.POSITIVE_INFINITY) ? this.dropLightest() : 0;
      acc = newAccumulator(clusterId(kind, tool, category), line, kind, tool, category, ts, this.signatureCounter(mapKey));
      acc.inherited = inherited;
      acc.seq = this.admitted++;
      this.clusters.set(mapKey, acc);
    }
    acc.count += 1;
    if (opened) this.lightest?.push(mapKey, acc.count + acc.inherited, acc.seq);
    // Stored as identifiers: a value that fails the grammar (a secret, a URL) is its placeholder.
    acc.inputs.add(this.ids.check('input_hash', event.input_hash));
    if (event.session_id) acc.sessions.add(this.ids.check('session_id', event.session_id));
    acc.first = Math.min(acc.first, ts);
    acc.last = Math.max(acc.last, ts);
    // Keyed by day number on the hot path; turned into YYYY-MM-DD once per cluster in finish().
    const day = Math.floor(ts / 86_400_000);
    acc.days.set(day, (acc.days.get(day) ?? 0) + 1);
    if (acc.days.size > 2 * this.daysKept) keepNewestDays(acc.days, this.daysKept);
    if (baseline !== null) acc.baseline = baseline;
    this.sample(acc, event, ref, ts);
    if (kind === 'failure') {
      if (signature !== null) acc.signatures.count(signature);
      if (acc.signatures.dropped) this.signaturesDropped = true;
    }
    return { key: mapKey, tool: acc.tool };
  }

  /**
   * Space-Saving's replacement step: the lightest cluster (fewest events, counting what it inherited;
   * the older of equals) is dropped and its events counted in `overflow`. Returns its weight, which the
   * cluster taking its place inherits, so that a stream of one-off clusters cannot push out one that
   * repeats: each newcomer starts above the lightest instead of at 1.
   */
  private dropLightest(): number {
    if (!this.lightest) {
      const weightOf = (key: string) => {
        const acc = this.clusters.get(key);
        return acc && acc.count + acc.inherited;
      };
      this.lightest = new LightestFirst(weightOf);
      for (const [key, acc] of this.clusters) this.lightest.push(key, acc.count + acc.inherited, acc.seq);
    }
    const dropped = this.lightest.pop();
    if (!dropped) return 0;
    this.overflow += this.clusters.get(dropped.key)!.count;
    this.evicted += 1;
    this.clusters.delete(dropped.key);
    return dropped.weight;
  }

  /** The program a shell call's failure belongs to, remembered per message and command (a few per message). */
  private shellFamily(event: TelemetryEvent, remembered: Map<string, string> | undefined): string {
    const key = `${event.tool_name}\u0000${event.input_summary ?? ''}`;
    let family = remembered?.get(key);
    if (family === undefined) {
      family = this.toolName(toolFamily(event.tool_name, event.input_summary, event.error_message));
      if (remembered && remembered.size < 16 && key.length <= 512) remembered.set(key, family);
    }
    return family;
  }

  /**
   * The cluster key of an event (kind, cleaned tool, cleaned category), memoized by the raw tool name and
   * category: building and hashing a new key string per event cost more than the rest of add(). The memo
   * holds at most MAX_MEMO_KEYS entries of short names in all (a hostile log may invent names and
   * categories at will: past the cap, keys are built each time, as before the memo).
   */
  private mapKey(kind: ClusterKind, event: TelemetryEvent): string {
    const memo = kind === 'failure' ? this.failureKeys : this.slowKeys;
    const rawTool = event.tool_name;
    const rawCategory = kind === 'failure' ? (event.error_category ?? '') : '';
    let byCategory = memo.get(rawTool);
    let key = byCategory?.get(rawCategory);
    if (key === undefined) {
      const category = kind === 'failure' ? failureCategory(event, this.ids) : null;
      key = `${kind}\u0000${this.toolName(kind === 'failure' ? toolFamily(rawTool) : rawTool)}\u0000${category ?? ''}`;
      if (this.memoKeys < MAX_MEMO_KEYS && rawTool.length + rawCategory.length <= MAX_MEMO_NAME) {
        if (byCategory === undefined) memo.set(rawTool, (byCategory = new Map()));
        byCategory.set(rawCategory, key);
        this.memoKeys += 1;
      }
    }
    return key;
  }

  /** Per cluster key, its signatures when no other can join (the cluster has maxSignatures). */
  fullSignatureSets(): Record<string, string[]> {
    const sets: Record<string, string[]> = {};
    for (const [key, acc] of this.clusters) if (acc.signatures.full) sets[key] = acc.signatures.keys();
    return sets;
  }

  /** The accumulators as plain data, in the order they were opened. */
  toState(): ClusterState[] {
    return [...this.clusters].map(([key, acc]) => ({
      key, id: acc.id, line: acc.line, kind: acc.kind, tool: acc.tool, category: acc.category, count: acc.count,
      inputs: acc.inputs.toState(), sessions: acc.sessions.toState(), first: acc.first, last: acc.last,
      days: [...acc.days], samples: acc.samples, signatures: acc.signatures.toState(), baseline: acc.baseline,
    }));
  }

  /**
   * Whether merging clusters built over the lines after this builder's gives exactly what one builder
   * over all the lines would: not if the other side turned events or signatures away (past a cap the
   * order decides what is kept), nor if the union would pass max_clusters. `extraKeys` are keys that
   * may still be opened afterwards.
   */
  canMerge(others: ClusterState[], otherOverflow: number, extraKeys: string[] = []): boolean {
    // Past max_clusters either side's sketch depends on the order (and this side may have dropped and
    // re-opened a cluster whose settled signatures the other side was given): one pass decides.
    if (this.evicted > 0 || otherOverflow > 0 || others.some((c) => c.signatures.dropped)) return false;
    const keys = new Set([...this.clusters.keys(), ...others.map((c) => c.key), ...extraKeys]);
    return keys.size <= (this.limits.maxClusters ?? Number.POSITIVE_INFINITY);
  }

  /** Adds clusters built over the lines after this builder's (check canMerge first). */
  merge(others: ClusterState[]): void {
    for (const other of others) {
      let acc = this.clusters.get(other.key);
      const opened = !acc;
      if (!acc) {
        acc = newAccumulator(other.id, other.line, other.kind, other.tool, other.category, other.first, this.signatureCounter(other.key));
        acc.seq = this.admitted++;
        this.clusters.set(other.key, acc);
      }
      acc.count += other.count;
      if (opened) this.lightest?.push(other.key, acc.count + acc.inherited, acc.seq);
      acc.inputs.merge(other.inputs);
      acc.sessions.merge(other.sessions);
      acc.first = Math.min(acc.first, other.first);
      acc.last = Math.max(acc.last, other.last);
      for (const [day, n] of other.days) acc.days.set(day, (acc.days.get(day) ?? 0) + n);
      if (acc.days.size > 2 * this.daysKept) keepNewestDays(acc.days, this.daysKept);
      if (other.baseline !== null) acc.baseline = other.baseline;
      // Bottom-k by priority; on equal priority the earlier line (this side) stays, as in add().
      acc.samples = [...acc.samples, ...other.samples].sort((a, b) => a.priority - b.priority).slice(0, this.limits.sampleSize);
      acc.signatures.merge(other.signatures);
    }
  }

  private signatureCounter(mapKey: string): SignatureCounter {
    const settled = this.limits.settledSignatures;
    return new SignatureCounter(this.limits.maxSignatures ?? MAX_SIGNATURES, {
      ...(settled && Object.hasOwn(settled, mapKey) ? { settled: settled[mapKey]! } : {}),
      ...(this.limits.hashOverflowSignatures ? { hashBudget: this.hashBudget } : {}),
    });
  }

  /**
   * Every text kept so far with `edit` applied: the error lines, the evidence events (message and call)
   * and the signatures. For a secret learnt after they were kept (see session-secrets.ts).
   */
  scrub(edit: (text: string) => string): void {
    for (const acc of this.clusters.values()) {
      if (acc.line !== null) acc.line = edit(acc.line);
      acc.samples = acc.samples.map((sample) => ({ ...sample, event: scrubEvent(sample.event, edit) }));
      acc.signatures.rekey(edit);
    }
  }

  /** The clusters, sorted by id, with every stored message redacted. */
  finish(): Cluster[] {
    for (const acc of this.clusters.values()) if (acc.days.size > this.daysKept) keepNewestDays(acc.days, this.daysKept);
    // Each cluster lists its first 50 inputs and sessions, and they repeat from cluster to cluster (a
    // session fails in many): each id is redacted once.
    const ids = new BoundedMemo<string>(20_000, 256);
    const scrubId = (id: string): string => ids.get(id, () => redact(id));
    return [...this.clusters.values()].map((acc) => toCluster(acc, scrubId)).sort((a, b) => (a.id < b.id ? -1 : 1));
  }

  private get daysKept(): number {
    return this.limits.daysKept ?? Number.POSITIVE_INFINITY;
  }

  private sample(acc: Accumulator, event: TelemetryEvent, ref: EventRef, ts: number): void {
    let fileHash = this.fileHashes.get(ref.file);
    if (fileHash === undefined) {
      fileHash = fnv1a(ref.file);
      if (this.fileHashes.size < MAX_TRACKED) this.fileHashes.set(ref.file, fileHash);
    }
    const priority = mix32(fileHash ^ mix32(ref.offset % 0x100000000) ^ mix32(Math.floor(ref.offset / 0x100000000) + 0x9e3779b9));
    const samples = acc.samples;
    if (samples.length < this.limits.sampleSize) {
      samples.push({ priority, event, ref, ts });
      samples.sort((a, b) => a.priority - b.priority);
      return;
    }
    if (priority >= samples[samples.length - 1]!.priority) return;
    samples[samples.length - 1] = { priority, event, ref, ts };
    samples.sort((a, b) => a.priority - b.priority);
  }
}

function scrubEvent(event: TelemetryEvent, edit: (text: string) => string): TelemetryEvent {
  let out = event;
  for (const field of ['error_message', 'input_summary'] as const) {
    const text = event[field];
    if (typeof text !== 'string') continue;
    const kept = edit(text);
    if (kept !== text) out = { ...out, [field]: kept };
  }
  return out;
}

/** What the builder remembers of a failure message (see ClusterBuilder.add). */
interface KnownMessage {
  signature: string | null;
  line: string;
  /** Per tool name and command, the family of the shell program that failed (shell tools only). */
  families: Map<string, string> | null;
  /** The last cluster key without the line, and with it: built once per message and tool, not per failure. */
  base: string | null;
  key: string | null;
}

/** A failure's cluster key: its tool, category and masked error line. */
function withLine(base: string, line: string, known: KnownMessage | null): string {
  if (known !== null && known.base === base) return known.key!;
  const key = `${base}\u0000${line}`;
  if (known !== null) {
    known.base = base;
    known.key = key;
  }
  return key;
}

/**
 * A category is an identifier (`git_error`), never prose: anything else in the field is attacker-
 * controllable text that would otherwise flow into rule texts, so it becomes its placeholder
 * (`category-3f2a9c`); no category at all is `uncategorized`.
 */
export function failureCategory(event: TelemetryEvent, ids: IdentifierGuard = new IdentifierGuard()): string {
  const raw = event.error_category;
  if (raw === undefined || raw === null) return 'uncategorized';
  const category = raw.trim();
  return category === '' ? 'uncategorized' : ids.check('error_category', category);
}

/**
 * Tool names are log text too: a name that fails the identifier grammar (or carries a secret, a URL,
 * a flag) is replaced by its placeholder before it keys a cluster or a baseline. Memoized by the guard,
 * because a log has few distinct tool names and this runs per event.
 */
export function toolNameCleaner(ids: IdentifierGuard = new IdentifierGuard()): (raw: string) => string {
  return (raw) => ids.check('tool_name', raw);
}

/**
 * A message's signature key and masked error line. Both are read from one line; a message whose secret
 * spans lines (a key block, key material wrapped over lines) is redacted whole first, since only there
 * is it one secret.
 */
function knownMessage(message: string, lines: FailureLines): KnownMessage {
  const text = isLineLocal(message) ? message : redact(message);
  return { signature: signatureKey(text), line: lines.of(text), families: null, base: null, key: null };
}

function newAccumulator(id: string, line: string | null, kind: ClusterKind, tool: string, category: string | null, ts: number, signatures: SignatureCounter): Accumulator {
  return {
    id, line, kind, tool, category, count: 0, inputs: new DistinctCounter(DISTINCT_EXACT, KEPT_IDS), sessions: new DistinctCounter(DISTINCT_EXACT, KEPT_IDS), first: ts, last: ts,
    days: new Map(), samples: [], signatures, baseline: null, inherited: 0, seq: 0,
  };
}

function toCluster(acc: Accumulator, scrubId: (id: string) => string): Cluster {
  const samples = [...acc.samples]
    .sort((a, b) => a.ts - b.ts || a.ref.offset - b.ref.offset)
    .map(({ event, ref, ts }) => toEvidence(event, ref, ts));
  return {
    id: acc.id,
    kind: acc.kind,
    tool_name: acc.tool,
    error_category: acc.category,
    count: acc.count,
    distinct_inputs: acc.inputs.size,
    input_hashes: acc.inputs.first().map(scrubId),
    sessions: acc.sessions.first().map(scrubId),
    first_seen: new Date(acc.first).toISOString(),
    last_seen: new Date(acc.last).toISOString(),
    days: Object.fromEntries([...acc.days].sort(([a], [b]) => a - b).map(([day, n]) => [new Date(day * 86_400_000).toISOString().slice(0, 10), n])),
    samples,
    signatures: acc.signatures.top(),
    baseline_ms: acc.baseline,
  };
}

export function toEvidence(event: TelemetryEvent, ref: EventRef, ts: number): Evidence {
  return {
    file: ref.file,
    offset: ref.offset,
    input_hash: safeIdentifier('input_hash', event.input_hash),
    session_id: event.session_id ? safeIdentifier('session_id', event.session_id) : null,
    timestamp: new Date(ts).toISOString(),
    duration_ms: event.duration_ms,
    // Masked as a template (values are `<*>`) after redaction: nothing of the raw line is kept.
    message: maskMessage(maskHomePaths(redact(event.error_message ?? ''))).slice(0, 300),
  };
}

/**
 * Drops all but the `kept` newest days. Exact for those it keeps, whatever the order of events: a day
 * dropped once had `kept` newer days, which stay, so it can never be among the newest again.
 */
function keepNewestDays(days: Map<number, number>, kept: number): void {
  const newest = [...days.keys()].sort((a, b) => b - a);
  for (const day of newest.slice(kept)) days.delete(day);
}
