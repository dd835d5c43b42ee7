/** Public library API. */
export { runSleepCycle, STAGES, type RunResult } from './run.js';
export type { RunContext, RunOptions, Logger } from './context.js';
export { SleepCycleError, errors, EXIT_CODES, type ErrorCode } from './errors.js';
export { checkEvent, isTelemetryEvent, parseTimestamp, type TelemetryEvent, type InvalidReason } from './telemetry/event.js';
export { resolveSettings, type ResolvedSettings } from './settings/resolve.js';
export { SETTINGS, defaultSettings, type Settings } from './settings/schema.js';
export { nodeFs, type FsPort } from './io/fs.js';
export { simpleGitPort, type GitPort } from './io/git.js';
export { systemClock, fixedClock, type Clock } from './io/clock.js';
export { createOfflineSynthesizer } from './synth/offline.js';
export type { Synthesizer, DraftRule, RuleTarget, SynthesizeRequest } from './synth/port.js';
export { redact } from './synth/redact.js';
export { parseSafetyPolicy, type SafetyPolicy } from './safety/policy.js';
export { evaluateDraft, type SafetyVerdict } from './safety/evaluate.js';
export { parseMemory, addRules } from './memory/memory-md.js';
export { runCli } from './cli/program.js';
