/** Keeps the characters identifiers are made of; null when nothing is left. */
export function cleanIdentifier(text: string, max: number): string | null {
  const clean = text.replace(/[^\w.:@/-]+/g, '_').replace(/^_+|_+$/g, '').slice(0, max);
  return clean.length > 0 ? clean : null;
}

