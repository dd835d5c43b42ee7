import { SCRUB_CHUNK } from './session-secrets.js';
import type { RawLine } from '../io/line-reader.js';
import type { Baseline } from '../memory/state.js';
import { checkEventTime, ParsedEvent, type InvalidReason, type ReadEvent, type TelemetryEvent } from '../telemetry/event.js';
import { EventScanner } from '../telemetry/event-scanner.js';
import { classifyStored, compileCategoryPatterns, type CategoryPattern, type CategoryPatternSpec } from '../telemetry/classify.js';
import { UsageCounter } from '../telemetry/usage.js';
import { ClusterBuilder, toolNameCleaner, type ClusterLimits } from './cluster.js';
import { isFailure, SlowDetector } from './filter.js';
import { callShape, mergeFollowUps, RecoveryTracker, type Call } from './recovery.js';
import type { FollowUp } from '../model/cluster.js';
import { BoundedMemo } from './bounded-memo.js';
import { isShellTool, toolFamily } from '../telemetry/tool-family.js';
import { IdentifierGuard, type IdentifierField } from '../safety/identifier.js';
import { RuleEffectTally, type RuleEffectInput } from './rule-effect.js';
import { redact } from '../safety/redact.js';
import { copiesOf, withoutCopies } from '../safety/cross-field.js';
import { SplitSecretTracker } from './split-secrets.js';

export interface LineCounts {
  read: number;
  valid: number;
  invalid: number;
  old: number;
  blank: number;
  invalid_by_reason: Partial<Record<InvalidReason, number>>;
  /**
   * Distinct tool names, categories, session ids and input hashes replaced by placeholders (see
   * safety/identifier.ts); set when the night is read, absent when none was.
   */
  identifiers_replaced?: Partial<Record<IdentifierField, number>>;
}

export interface InvalidLine {
  file: string;
  offset: number;
  reason: InvalidReason;
}

/** What the fold needs from the settings. */
export interface FoldSettings {
  sample_size: number;
  window_days: number;
  max_clusters: number;
  slow_factor: number;
  baseline_min_samples: number;
  slow_min_ms: number;
  /** Extra category patterns (settings), for failures written without a category (see `categorised`). */
  error_categories?: readonly CategoryPatternSpec[];
}

/** A stretch of a file being folded: its display name and the time up to which events are old. */
export interface FoldSegment {
  file: string;
  cutoff: number | null;
}

/** For the fold of a file's end (see ingest-merge.ts); a night's fold takes none. */
export interface FoldOptions {
  deferUnsettled?: boolean;
  maxSignatures?: number;
  known?: Record<string, number>;
  settledSignatures?: Record<string, string[]>;
  hashOverflowSignatures?: boolean;
  /** Lines read with JSON.parse before the event scanner is used (default SCAN_AFTER_LINES; tests use 0). */
  scanAfterLines?: number;
  /** The rules in memory whose exposures the night follows (see rule-effect.ts); none: nothing is followed. */
  effect?: RuleEffectInput;
}

export const MAX_INVALID_SAMPLES = 20;
/** Tool names whose family is remembered (a hostile log may invent many: past this, each is judged again). */
const MAX_TOOL_NAMES = 10_000;

/**
 * Lines a fold reads with JSON.parse before it uses the event scanner. Both give the same result; cold,
 * the scanner's JavaScript is slower than JSON.parse's C++ (a pre-session night of 10,000 lines took
 * about 10 ms longer with it), warm it is about twice as fast.
 */
const SCAN_AFTER_LINES = 20_000;

/**
 * The per-line work of ingest (+ filter + cluster): counts every line, checks it against the event
 * contract, and folds each valid event into usage, the slow detector and the cluster builder. One fold
 * runs over a night's lines in order; a worker thread runs another over the end of a large file, and
 * the two are merged (see ingest-merge.ts) into exactly what one fold over everything gives.
 */
export class IngestFold {
  readonly lines: LineCounts = { read: 0, valid: 0, invalid: 0, old: 0, blank: 0, invalid_by_reason: {} };
  readonly invalidSamples: InvalidLine[] = [];
  /** Tool names, categories, sessions and input hashes as stored: identifiers, or their placeholders. */
  readonly ids = new IdentifierGuard();
  readonly toolName = toolNameCleaner(this.ids);
  readonly builder: ClusterBuilder;
  /** The cluster limits the builder was made with (the template step builds the night's clusters with them). */
  readonly limits: ClusterLimits;
  readonly detector: SlowDetector;
  readonly usage = new UsageCounter();
  /** What worked after a failure (a range's fold also keeps each session's first calls, for the merge). */
  readonly recovery: RecoveryTracker;
  private readonly callShapes = new BoundedMemo<{ family: string; shape: string | null }>();
  /** Tool name → its family, or null for a shell tool (whose family depends on the command). */
  private readonly families = new BoundedMemo<string | null>(MAX_TOOL_NAMES, 256);
  /** A shell command line → the program it runs, or null when it names none (the shell tool is its family). */
  private readonly commandFamilies = new BoundedMemo<string | null>();
  /** A failure's category when its line has none (message and summary → category): messages repeat. */
  private readonly categories = new BoundedMemo<string>();
  private readonly extraCategories: readonly CategoryPattern[];
  /** What the rules shown to the agent did tonight (null without rules in memory). */
  readonly effect: RuleEffectTally | null;
  private readonly scanner = new EventScanner();
  /** Sessions whose last failure ended with a secret: their next failure may hold the rest of it. */
  readonly splitSecrets: SplitSecretTracker;
  /** The line JSON.parse read, as the scanner presents its own (one object, set to each line). */
  private readonly parsed = new ParsedEvent();
  private readonly scanAfterLines: number;
  /**
   * Earliest and latest valid event (epoch ms) over everything folded, and the latest since the last
   * `takeLatest()` (per log file, for its cursor). Kept as plain numbers with infinite "none yet"
   * values: a field that may hold null boxes every number stored in it, an allocation per line.
   */
  private from = Number.POSITIVE_INFINITY;
  private to = Number.NEGATIVE_INFINITY;
  private latest = Number.NEGATIVE_INFINITY;

  constructor(settings: FoldSettings, baselines: Record<string, Baseline>, options: FoldOptions = {}) {
    this.scanAfterLines = options.scanAfterLines ?? SCAN_AFTER_LINES;
    this.extraCategories = compileCategoryPatterns(settings.error_categories ?? []);
    this.recovery = new RecoveryTracker(options.deferUnsettled === true);
    // A deferred fold is a range's (the end of a file): it notes the sessions it reads, for the merge.
    this.splitSecrets = new SplitSecretTracker(options.deferUnsettled === true);
    this.effect = options.effect && Object.keys(options.effect.rules).length > 0 ? new RuleEffectTally(options.effect) : null;
    // Days beyond the window only count toward `count`; a margin keeps every day the gate may read.
    const limits = { sampleSize: settings.sample_size, maxClusters: settings.max_clusters, daysKept: Math.ceil(settings.window_days) + 32 };
    this.limits = limits;
    this.builder = new ClusterBuilder({ ...limits, ...(options.maxSignatures ? { maxSignatures: options.maxSignatures } : {}), ...(options.settledSignatures ? { settledSignatures: options.settledSignatures } : {}), ...(options.hashOverflowSignatures ? { hashOverflowSignatures: true } : {}) }, this.ids, this.toolName);
    this.detector = new SlowDetector(baselines, {
      slowFactor: settings.slow_factor,
      minSamples: settings.baseline_min_samples,
      minMs: settings.slow_min_ms,
      ...(options.deferUnsettled ? { deferUnsettled: true } : {}),
      ...(options.known ? { known: options.known } : {}),
    }, (call) => this.builder.add('slow', call.event, call.ts, call.ref, call.baseline), this.toolName);
  }

  /** Folds one line of `segment`. */
  line(line: RawLine, segment: FoldSegment): void {
    // Most lines are read from their bytes; the rest (and lines given as text) go through JSON.parse.
    // A small night is all JSON.parse: the scanner is faster only once the JIT has compiled it.
    if (line.bytes !== undefined && this.lines.read >= this.scanAfterLines && this.scanner.scan(line.bytes, line.start!, line.end!)) {
      this.lines.read += 1;
      return this.valid(this.scanner, segment, line.offset);
    }
    if (!line.tooLong && line.text.trim() === '') {
      this.lines.blank += 1;
      return;
    }
    this.lines.read += 1;
    if (line.tooLong) return this.countInvalid('line_too_long', segment.file, line.offset);
    let value: unknown;
    try {
      value = JSON.parse(line.text);
    } catch {
      return this.countInvalid('invalid_json', segment.file, line.offset);
    }
    const ts = checkEventTime(value);
    if (typeof ts !== 'number') return this.countInvalid(ts, segment.file, line.offset);
    this.valid(this.parsed.set(value as TelemetryEvent, ts), segment, line.offset);
  }

  /** Folds a valid event, however it was read: its event object is built only when something keeps it. */
  private valid(read: ReadEvent, segment: FoldSegment, offset: number): void {
    const ts = read.ts;
    if (segment.cutoff !== null && ts <= segment.cutoff) {
      this.lines.old += 1;
      return;
    }
    this.countValid(ts);
    const refs = read.memoryRefs();
    if (refs !== undefined) {
      // A hook's exposure line (rules put in front of the agent) is no tool call: counted apart, then done.
      const exposure = read.event().exposure;
      if (typeof exposure === 'string') {
        this.effect?.exposure(exposure, refs, read.sessionId());
        return this.usage.addExposure(exposure, refs, read.sessionId(), ts);
      }
      this.usage.addRefs(refs, ts);
    }
    this.usage.addCall(read.toolName);
    const family = this.countFamily(read);
    if (this.splitSecrets.notesReads) this.splitSecrets.noteRead(read.sessionId());
    if (this.effect !== null && this.effect.active) this.followEffect(read, family);
    if (read.exitCode === 0) {
      // A call that gives a secret away (`login --password x`): a bare copy in its session's later events goes too.
      this.splitSecrets.observeCall(read);
      // Most successes follow no failure: their session is not even read.
      if (!this.recovery.idle) this.followUp(read);
      return this.detector.observeSuccess(read.toolName, read.durationMs, segment.file, offset, read);
    }
    const raw = this.categorised(read.event());
    if (!isFailure(raw)) return this.splitSecrets.observeEvent(raw);
    const event = this.splitSecrets.follow(raw, this.idHeldSecret(raw));
    const cluster = this.builder.add('failure', event, ts, { file: segment.file, offset });
    const session = event.session_id === undefined ? undefined : this.ids.check('session_id', event.session_id);
    if (session !== undefined && cluster !== null) this.recovery.observe({ session, family: cluster.tool, failure: cluster.key, shape: null });
  }

  /**
   * A success as what may have worked after a failure. A tool that is not a shell is its own family, so
   * the call's event (for its shape) is built only when that family is the one a failure waits on.
   */
  private followUp(read: ReadEvent): void {
    const raw = read.sessionId();
    // Sessions key what worked next and are stored with it: as identifiers (memoised: they repeat).
    const session = raw === undefined ? undefined : this.ids.check('session_id', raw);
    if (session === undefined || !this.recovery.wants(session)) return;
    const family = this.families.get(read.toolName, () => (isShellTool(read.toolName) ? null : toolFamily(read.toolName)));
    if (family !== null && !this.recovery.needsShape(session, family)) return this.recovery.observe({ session, family, failure: null, shape: null });
    this.recovery.observe(this.successCall(session, read.event(), this.splitSecrets.values.copies(raw)));
  }

  /**
   * Counts the call by tool family (the denominator of a rule's failure rate) and returns the family: a
   * tool's own, memoised per name; a shell call's from its command line, memoised per line (agents repeat
   * their commands), read without building the event.
   */
  private countFamily(read: ReadEvent): string {
    const family = this.families.get(read.toolName, () => (isShellTool(read.toolName) ? null : toolFamily(read.toolName)));
    if (family !== null) return family;
    const summary = read.inputSummary();
    const program = typeof summary === 'string' ? this.commandFamilies.get(summary, () => commandProgram(summary)) : null;
    this.usage.addShellCall(program ?? read.toolName);
    return program ?? read.toolName;
  }

  /** A call in a session that saw a rule: exposed calls, exposed failures, what followed a reminder. */
  private followEffect(read: ReadEvent, family: string): void {
    const session = read.sessionId();
    if (session === undefined) return;
    const event = read.exitCode === 0 ? null : this.categorised(read.event());
    this.effect!.call(session, family, event !== null && isFailure(event) ? event : null);
  }

  /**
   * A failed call's event with its category: a line without one (the Claude Code hook leaves it to the
   * night, see claude-code-hook.ts) is classified here, as the logger would have, from what the line
   * holds: the redacted message and, for a shell, the command in its input summary.
   */
  /** Whether the failure's category, tool name or session id was refused for holding a secret or a piece of one. */
  private idHeldSecret(event: TelemetryEvent): boolean {
    const held = (field: 'error_category' | 'tool_name' | 'session_id', raw: unknown): boolean => typeof raw === 'string' && raw !== '' && this.ids.heldSecret(field, field === 'error_category' ? raw.trim() : raw);
    return held('error_category', event.error_category) || held('tool_name', event.tool_name) || held('session_id', event.session_id);
  }

  private categorised(event: TelemetryEvent): TelemetryEvent {
    if (event.error_category !== undefined || event.exit_code === 0) return event;
    const key = `${event.tool_name}\u0000${event.exit_code}\u0000${event.input_summary ?? ''}\u0000${event.error_message ?? ''}`;
    event.error_category = this.categories.get(key, () => classifyStored(event, this.extraCategories));
    return event;
  }

  private countValid(ts: number): void {
    this.lines.valid += 1;
    if (ts > this.latest) this.latest = ts;
    if (ts < this.from) this.from = ts;
    if (ts > this.to) this.to = ts;
  }

  /**
   * A successful call as what may have worked after a failure: its family and the shape of the call. A
   * value its session gave away earlier (`copies`) is no part of the shape (`db use <that value>`).
   */
  private successCall(session: string, event: TelemetryEvent, copies: RegExp | null): Call {
    const call = copies === null || event.input_summary === undefined ? event : { ...event, input_summary: withoutCopies(event.input_summary!, copies) };
    const { family, shape } = this.callShapes.get(`${call.tool_name}\u0000${call.input_summary ?? ''}`, () => familyAndShape(call, this.toolName));
    return { session, family, failure: null, shape };
  }

  /**
   * Removes, from what the fold kept, the secrets a session gave away only after (a bare copy in an
   * earlier event's error line, evidence, signature or call shape; see session-secrets.ts), once the
   * last line is folded. Returns what worked after each failure cluster, scrubbed the same way.
   */
  settleSecrets(): Map<string, FollowUp[]> {
    const followUps = this.recovery.result();
    // Longest first across the patterns too: a value inside a longer one must not cut it before it is matched whole.
    const night = this.splitSecrets.values.night().sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
    const patterns: RegExp[] = [];
    for (let at = 0; at < night.length; at += SCRUB_CHUNK) {
      const copies = copiesOf(night.slice(at, at + SCRUB_CHUNK));
      if (copies !== null) patterns.push(copies);
    }
    if (patterns.length === 0) return followUps;
    const edit = (text: string) => patterns.reduce((kept, copies) => withoutCopies(kept, copies), text);
    this.builder.scrub(edit);
    for (const [key, ups] of followUps) {
      const kept = ups.map((up) => ({ ...up, shape: shapeBefore(up.shape, edit) })).filter((up): up is FollowUp => up.shape !== null);
      followUps.set(key, mergeFollowUps([kept], kept.length));
    }
    return followUps;
  }

  /** Earliest and latest valid event (epoch ms), over everything folded; null when there was none. */
  get window(): { from: number | null; to: number | null } {
    return { from: this.from === Number.POSITIVE_INFINITY ? null : this.from, to: this.to === Number.NEGATIVE_INFINITY ? null : this.to };
  }

  /** Takes in the times of valid events folded elsewhere (a merged range). */
  noteTimes(from: number | null, to: number | null, latest: number | null): void {
    if (from !== null && from < this.from) this.from = from;
    if (to !== null && to > this.to) this.to = to;
    if (latest !== null && latest > this.latest) this.latest = latest;
  }

  /**
   * Whether a cap was reached (clusters, tools, waiting slow calls, signatures, usage names): past a cap
   * the order of lines decides what is kept, so the fold of a file's end can no longer be merged and
   * may as well stop.
   */
  reachedACap(): boolean {
    return this.builder.overflow > 0 || this.recovery.full || this.builder.signaturesDropped || this.detector.untracked > 0 || this.detector.overflowed || this.usage.full;
  }

  /** The latest valid event time since the previous call (null when none), and starts over. */
  takeLatest(): number | null {
    const latest = this.latest;
    this.latest = Number.NEGATIVE_INFINITY;
    return latest === Number.NEGATIVE_INFINITY ? null : latest;
  }

  /** Counts an invalid line; the first few are kept as samples, in file order. */
  countInvalid(reason: InvalidReason, file: string, offset: number): void {
    this.lines.invalid += 1;
    this.lines.invalid_by_reason[reason] = (this.lines.invalid_by_reason[reason] ?? 0) + 1;
    if (this.invalidSamples.length < MAX_INVALID_SAMPLES) this.invalidSamples.push({ file, offset, reason });
  }
}

/**
 * The program a shell command line runs (its family), or null when it names none. Asked for a shell tool
 * no agent is named, so that toolFamily's fallback (the tool's own name) is told apart from a program of
 * the same name: the memo, keyed by the line alone, gives every shell tool the same answer.
 */
function commandProgram(summary: string): string | null {
  const family = toolFamily(ANY_SHELL, summary);
  return family === ANY_SHELL ? null : family;
}

const ANY_SHELL = 'run_shell_command';

/** A call shape's words up to the first one `edit` changes (a secret), or null when that is the first. */
function shapeBefore(shape: string, edit: (text: string) => string): string | null {
  const edited = edit(shape);
  if (edited === shape) return shape;
  let same = 0;
  while (same < shape.length && shape[same] === edited[same]) same += 1;
  // The whole words before the first changed character (a shape's words are separated by one blank).
  const kept = shape.slice(0, same).split(' ').slice(0, -1).join(' ');
  return kept === '' ? null : kept;
}

/**
 * The family and shape of a successful call (see IngestFold.successCall). The shape is stored and cited:
 * it is read from the redacted summary (a password after `AUTH` is a marker, which ends the shape), and
 * a call without a summary is named by its tool name as stored.
 */
function familyAndShape(event: TelemetryEvent, toolName: (raw: string) => string): { family: string; shape: string | null } {
  const family = isShellTool(event.tool_name) ? toolFamily(event.tool_name, event.input_summary) : toolFamily(event.tool_name);
  const summary = event.input_summary === undefined ? undefined : redact(event.input_summary);
  return { family: toolName(family), shape: callShape(toolName(event.tool_name), summary) };
}
