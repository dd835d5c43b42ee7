/**
 * Names in messages, which masking alone cannot judge: the program a complaint starts with, whose
 * version is a value, and joined identifiers, which the miner weighs like values (scope-store.ts).
 */
import { normalizeProgram } from '../telemetry/program-name.js';
import { WILDCARD } from './tokenize.js';

/**
 * A program naming itself at the head of its complaint (`python3: can't open file …`, `gcc-12: …`): its
 * version is a value, its name is not, so the same complaint from `python` and `python3` shares a
 * template (`python<*>:`, whose value may be empty: unit.ts). What a version suffix is, is the tool
 * families' rule (program-name.ts), so `eth0:` or `e1000:`, devices, keep their digits.
 */
export function maskProgramVersion(token: string): string | undefined {
  if (!/^[a-z][\w.+-]{0,40}:$/.test(token)) return undefined;
  const name = token.slice(0, -1);
  const program = normalizeProgram(name);
  const version = name.slice(program.length);
  return name.startsWith(program) && /^-?\d+(?:\.\d+)*$/.test(version) ? `${program}${WILDCARD}:` : undefined;
}

/**
 * A name joined from identifier parts by `_` or `.` (`__main__.Book`, `test_questioner`, `my_app`): not
 * a value by its form alone (`app_label`, `os.path` are fixed words), but a name a program put in its
 * message, so one different such name at a position weighs as much as a value there (scope-store.ts).
 * It has a lower-case letter: an upper-case one (`JOB_SETUP_COMPLETED`) is a constant or a state, which
 * names an event rather than fills one.
 */
const JOINED_NAME = /^_*[A-Za-z][A-Za-z0-9]*(?:[_.]+[A-Za-z0-9]+)+_*$/;

export function isJoinedName(token: string): boolean {
  const core = token.length > 1 && ',;:'.includes(token[token.length - 1]!) ? token.slice(0, -1) : token;
  return core.length <= 200 && JOINED_NAME.test(core) && /[a-z]/.test(core);
}
