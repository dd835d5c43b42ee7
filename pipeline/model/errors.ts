/**
 * The error catalog. Library code throws `SleepCycleError`; only the CLI entry point turns one into an
 * exit code. Every factory says what was expected, what was found (truncated) and how to fix it.
 * Messages are built from redacted text only: callers pass values through `redact` first.
 */
export type ErrorCode =
  | 'E_USAGE'
  | 'E_CONFIG'
  | 'E_SAFETY_RULES'
  | 'E_LOCKED'
  | 'E_IO'
  | 'E_GIT'
  | 'E_STATE'
  | 'E_LLM'
  | 'E_INTERNAL';

export const EXIT_CODES: Record<ErrorCode, number> = {
  E_USAGE: 2,
  E_CONFIG: 2,
  E_SAFETY_RULES: 2,
  E_LOCKED: 3,
  E_IO: 1,
  E_GIT: 1,
  E_STATE: 1,
  E_LLM: 1,
  E_INTERNAL: 1,
};

export class SleepCycleError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'SleepCycleError';
    this.code = code;
    this.details = details;
  }
}

export function truncate(value: unknown, max = 80): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

export const errors = {
  usage(message: string, details: Record<string, unknown> = {}): SleepCycleError {
    return new SleepCycleError('E_USAGE', message, details);
  },
  config(file: string, key: string, expected: string, found: unknown, hint = ''): SleepCycleError {
    const fix = hint ? ` ${hint}` : '';
    return new SleepCycleError(
      'E_CONFIG',
      `${file}: "${key}" must be ${expected}, found ${truncate(found)}.${fix}`,
      { file, key, expected },
    );
  },
  safetyRules(file: string, rule: string, expected: string, found: unknown): SleepCycleError {
    return new SleepCycleError(
      'E_SAFETY_RULES',
      `${file}: safety rule "${rule}": expected ${expected}, found ${truncate(found)}. ` +
        'Fix the policy file; nothing was written because rules cannot be checked without it.',
      { file, rule, expected },
    );
  },
  locked(holder: { pid: number; host: string; started: string }, lockPath: string): SleepCycleError {
    return new SleepCycleError(
      'E_LOCKED',
      `another sleep-cycle run holds ${lockPath} (pid ${holder.pid} on ${holder.host}, started ${holder.started}). ` +
        'Wait for it to finish, or remove the lock file if that process is gone.',
      { lock: lockPath, ...holder },
    );
  },
  io(action: string, path: string, cause: unknown): SleepCycleError {
    const reason = cause instanceof Error ? cause.message : String(cause);
    return new SleepCycleError('E_IO', `could not ${action} ${path}: ${truncate(reason, 200)}`, { path });
  },
  /** A path that leaves the repository, or is a FIFO, device or socket: `problem` says where it points. */
  unsafePath(path: string, problem: string, fix: string): SleepCycleError {
    return new SleepCycleError('E_IO', `${path} ${problem}. ${fix}.`, { path });
  },
  git(action: string, cause: unknown): SleepCycleError {
    const reason = cause instanceof Error ? cause.message : String(cause);
    return new SleepCycleError('E_GIT', `git ${action} failed: ${truncate(reason, 600)}`, { action });
  },
  state(path: string, problem: string, fix: string): SleepCycleError {
    return new SleepCycleError('E_STATE', `${path}: ${problem}. ${fix}`, { path, problem });
  },
  internal(message: string): SleepCycleError {
    return new SleepCycleError('E_INTERNAL', message);
  },
};
