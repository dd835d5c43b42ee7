/** `1 rule`, `2 rules`, `0 rules`: a count with its noun, for text a person reads (never for --json). */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`;
}
