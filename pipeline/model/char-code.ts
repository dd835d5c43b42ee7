/**
 * `text.charCodeAt(index)`, for loops that read log text character by character. V8 holds such text in
 * many representations (sliced from a line, joined, internalised, two-byte), each with its own map, and
 * a method looked up on the text sees all of them at one place in the code: past four the lookup is
 * megamorphic, a hash-table probe for every character (the redactor's two per-character gates spent
 * more instructions on that probe than on their own work). Called as the builtin it is, the optimiser
 * reads the character directly whatever the representation. Read `text.length` once before the loop,
 * for the same reason.
 */
export function codeAt(text: string, index: number): number {
  return CHAR_CODE_AT.call(text, index);
}

const CHAR_CODE_AT = String.prototype.charCodeAt;
