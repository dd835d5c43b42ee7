import { secretRuleSetLoaded } from './secrets-rule-set.js';

/**
 * A memo of what redaction makes of a text (the redacted text, or what it found), keyed by the text. Bounded because log text is attacker-controlled:
 * in entries, in the length of a text kept (a longer one is simply redone) and in the characters held
 * in all. Full, it starts over (what repeats comes back at once). A redaction made before the
 * maintained rule set loaded may differ from one made after, so the memo is emptied when it loads.
 */
export class RedactionMemo<V = string> {
  private readonly values = new Map<string, V>();
  private chars = 0;
  private withRuleSet = false;

  /**
   * `maxChars` bounds the characters of the texts and of what is kept for them, as `sizeOf` counts them
   * (by default the text alone: a value that holds no more than its text's characters).
   */
  constructor(
    private readonly maxEntries: number,
    private readonly maxKeyLength: number,
    private readonly maxChars: number,
    private readonly sizeOf: (text: string, value: V) => number = (text) => text.length,
  ) {}

  get(text: string, redact: (text: string) => V): V {
    if (text.length > this.maxKeyLength) return redact(text);
    if (this.withRuleSet !== secretRuleSetLoaded()) {
      this.clear();
      this.withRuleSet = secretRuleSetLoaded();
    }
    let out = this.values.get(text);
    if (out === undefined) {
      out = redact(text);
      const size = this.sizeOf(text, out);
      if (this.values.size >= this.maxEntries || this.chars + size > this.maxChars) this.clear();
      this.values.set(text, out);
      this.chars += size;
    }
    return out;
  }

  private clear(): void {
    this.values.clear();
    this.chars = 0;
  }
}
