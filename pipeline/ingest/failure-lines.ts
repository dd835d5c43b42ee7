import { redact } from '../safety/redact.js';
import { errorLine } from '../telemetry/error-line.js';
import { LineMasker } from '../templates/line-mask.js';
import { BoundedMemo } from './bounded-memo.js';

/**
 * The line a failure's template is mined from: its error line (the exception that ended a traceback,
 * pytest's verdict, the shell's complaint), redacted before its values are masked (masking first would
 * hide a key such as DB_1_PASSWORD and leave its value). Messages differ far more than their error
 * lines do, and error lines mostly in their numbers, so the work is shared at each step: redaction runs
 * once per distinct error line, masking once per digit shape (see LineMasker).
 */
export class FailureLines {
  private readonly masked = new BoundedMemo<string>();
  private readonly masker = new LineMasker();

  of(message: string): string {
    const line = errorLine(message);
    return this.masked.get(line, () => this.masker.mask(redact(line)));
  }
}
