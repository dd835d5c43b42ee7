/** Whether 8 characters in a row of `value` (all of a shorter one) survive in `out` beyond what the text around held. */
export function leaks(out: string, value: string, text: string): boolean {
  const count = (hay: string, piece: string) => hay.split(piece).length - 1;
  const left = (piece: string) => count(out, piece) > count(text, piece) - count(value, piece);
  if (value.length <= 8) return left(value);
  for (let i = 0; i + 8 <= value.length; i += 1) if (left(value.slice(i, i + 8))) return true;
  return false;
}
