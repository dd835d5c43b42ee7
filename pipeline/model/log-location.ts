/**
 * Where a line sits in a log, as a person reads it. Evidence and invalid lines are kept as byte offsets
 * (what the cursor and `tail -c` seek to); `file:552739` would pass one off as a line number.
 */
export function logLocation(place: { file: string; offset: number }): string {
  return `${place.file} (byte ${place.offset})`;
}
