/**
 * A small typed description of a JSON document sleep-cycle reads back (state.json), and its checker.
 * Checking collects every problem with the path of its field (`rules.r-3f9a1c.last_reinforced`) instead
 * of stopping at the first, and returns a copy whose maps have no prototype: a key such as `constructor`
 * is an entry like any other, never a lookup into Object.prototype.
 */
export interface Problem {
  path: string;
  expected: string;
  found: unknown;
  /** Said instead of "expected …, found …" when a nested checker knows better what is wrong (and where). */
  message?: string;
}

/** Problems that make the document wrong, and entries of skippable maps that were left out. */
export interface Report {
  problems: Problem[];
  skipped: Problem[];
}

export const INVALID: unique symbol = Symbol('invalid');

export interface Schema<T> {
  readonly expected: string;
  check(value: unknown, path: string, report: Report): T | typeof INVALID;
}

/** A field that may be absent (left absent in the copy). */
export interface Optional<V> {
  readonly kind: 'optional';
  readonly schema: Schema<V>;
}

/** A field older files lack: filled with its default, as the code that wrote them behaved. */
export interface Defaulted<V> {
  readonly kind: 'defaulted';
  readonly schema: Schema<V>;
  readonly fallback: () => V;
}

/** Optional keys of T must be described as optional; required keys as required or defaulted. */
export type Fields<T> = {
  [K in keyof T]-?: {} extends Pick<T, K> ? Optional<Exclude<T[K], undefined>> : Schema<T[K]> | Defaulted<T[K]>;
};

export const optional = <V>(schema: Schema<V>): Optional<V> => ({ kind: 'optional', schema });
export const defaulted = <V>(schema: Schema<V>, fallback: NoInfer<() => V>): Defaulted<V> => ({ kind: 'defaulted', schema, fallback });

/** A leaf: `test` decides, `expected` says what it wanted. */
export function leaf<T>(expected: string, test: (value: unknown) => boolean): Schema<T> {
  return {
    expected,
    check(value, path, report) {
      if (test(value)) return value as T;
      report.problems.push({ path, expected, found: value });
      return INVALID;
    },
  };
}

export const string = (expected = 'a string', pattern?: RegExp): Schema<string> =>
  leaf(expected, (v) => typeof v === 'string' && (!pattern || pattern.test(v)));
export const boolean: Schema<boolean> = leaf('true or false', (v) => typeof v === 'boolean');
export const integer = (min = 0): Schema<number> => leaf(`a whole number, ${min} or more`, (v) => Number.isSafeInteger(v) && (v as number) >= min);
export const number = (min = 0, max = Number.POSITIVE_INFINITY): Schema<number> =>
  leaf(max === Number.POSITIVE_INFINITY ? `a number, ${min} or more` : `a number from ${min} to ${max}`, (v) => typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max);
export const anyNumber: Schema<number> = leaf('a number', (v) => typeof v === 'number' && Number.isFinite(v));
export const oneOf = <T extends string>(...values: T[]): Schema<T> =>
  leaf(`one of ${values.map((v) => JSON.stringify(v)).join(', ')}`, (v) => (values as unknown[]).includes(v));

/** `2026-11-21`, `2026-11-21T03:00:00Z`, `2026-11-21T03:00:00.000+02:00`: a real date, as written by toISOString or by hand. */
const ISO = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2}))?$/;
export const isoDate: Schema<string> = leaf('an ISO-8601 date', (v) => typeof v === 'string' && ISO.test(v) && !Number.isNaN(Date.parse(v)));

export function nullable<T>(schema: Schema<T>): Schema<T | null> {
  return { expected: `${schema.expected} or null`, check: (value, path, report) => (value === null ? null : schema.check(value, path, report)) };
}

export function array<T>(item: Schema<T>): Schema<T[]> {
  return {
    expected: `a list of ${item.expected}`,
    check(value, path, report) {
      if (!Array.isArray(value)) return fail(report, path, `a list of ${item.expected}`, value);
      const out = value.map((v, i) => item.check(v, `${path}[${i}]`, report));
      return out.includes(INVALID) ? INVALID : (out as T[]);
    },
  };
}

/** Described fields are checked (absent ones filled or left out); unknown keys are kept as they are. */
export function object<T>(fields: Fields<T>, expected = 'an object'): Schema<T> {
  return {
    expected,
    check(value, path, report) {
      if (!isPlainObject(value)) return fail(report, path, expected, value);
      const out: Record<string, unknown> = {};
      let ok = true;
      for (const [key, item] of Object.entries(value)) {
        if (key === '__proto__') {
          fail(report, join(path, key), 'no key named __proto__', item);
          ok = false;
        } else if (!Object.hasOwn(fields, key)) out[key] = item;
      }
      for (const [key, spec] of Object.entries(fields) as [string, Schema<unknown> | Optional<unknown> | Defaulted<unknown>][]) {
        const present = Object.hasOwn(value, key) && (value as Record<string, unknown>)[key] !== undefined;
        if (!present && 'kind' in spec) {
          if (spec.kind === 'defaulted') out[key] = spec.fallback();
          continue;
        }
        const checked = ('kind' in spec ? spec.schema : spec).check((value as Record<string, unknown>)[key], join(path, key), report);
        if (checked === INVALID) ok = false;
        else out[key] = checked;
      }
      return ok ? (out as T) : INVALID;
    },
  };
}

export interface RecordOptions {
  /** What a key must look like (an id, a day), besides never being `__proto__`. */
  key?: { pattern: RegExp; expected: string };
  /** `skip`: a bad entry is left out and reported in `skipped` (caches, counts the next nights rebuild). */
  onBadEntry?: 'error' | 'skip';
  /** The entry's field that must repeat its key (`rules.r-1.id` is `r-1`): code looks entries up both ways. */
  idField?: string;
}

/** A map from key to value, copied into an object without a prototype. */
export function record<T>(item: Schema<T>, options: RecordOptions = {}): Schema<Record<string, T>> {
  const expected = `an object mapping ${options.key?.expected ?? 'names'} to ${item.expected}`;
  return {
    expected,
    check(value, path, report) {
      if (!isPlainObject(value)) return fail(report, path, expected, value);
      const out = Object.create(null) as Record<string, T>;
      let ok = true;
      for (const [key, entry] of Object.entries(value)) {
        const own: Report = { problems: [], skipped: report.skipped };
        // A bad key says it all: the entry under it is not checked field by field.
        const badKey = key === '__proto__' || (options.key !== undefined && !options.key.pattern.test(key));
        if (badKey) own.problems.push({ path: join(path, key), expected: `a key that is ${options.key?.expected ?? 'not __proto__'}`, found: key });
        const checked = badKey ? INVALID : item.check(entry, join(path, key), own);
        const id = options.idField && checked !== INVALID ? (checked as Record<string, unknown>)[options.idField] : key;
        if (id !== key) own.problems.push({ path: join(join(path, key), options.idField!), expected: `${JSON.stringify(key)}, the key it is filed under`, found: id });
        if (own.problems.length === 0 && checked !== INVALID) out[key] = checked;
        else if (options.onBadEntry === 'skip') report.skipped.push(...own.problems);
        else {
          report.problems.push(...own.problems);
          ok = false;
        }
      }
      return ok ? out : INVALID;
    },
  };
}

/** An empty map without a prototype (the default of an absent map). */
export function emptyMap<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fail(report: Report, path: string, expected: string, found: unknown): typeof INVALID {
  report.problems.push({ path, expected, found });
  return INVALID;
}

/** `rules.r-3f9a1c`, or `cursors["logs/telemetry.jsonl"]` for a key that is not a plain word. */
function join(path: string, key: string): string {
  const step = /^[\w-]+$/.test(key) ? key : `[${JSON.stringify(key)}]`;
  return path === '' ? step : step.startsWith('[') ? `${path}${step}` : `${path}.${step}`;
}
