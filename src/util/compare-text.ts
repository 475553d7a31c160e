/**
 * Orders names for people: case-insensitive, then by code point so the order is total. Unlike
 * `localeCompare` it reads no locale (the same order on every machine) and needs no ICU collator,
 * whose first use costs `streamdoctor diagnose` about 6 ms of start-up.
 */
export function compareText(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  if (x !== y) return x < y ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}
