/**
 * Closes a pretty-printed JSON object cut off before its end, as reports pasted from a log, a page or a
 * chat often are: the text up to its last complete member or element, then the brackets still open.
 *
 * Only cuts that cannot change a value are tried: right before a comma (the value before it is whole),
 * right after an opening bracket, or the end of the text when it ends with a closing bracket or a whole
 * string. Never after a bare number or literal, which the cut may have shortened (`74470` → `744`).
 * The latest few cuts are tried, latest first, so a value broken earlier than its end (a stray comment,
 * a missing quote) stays malformed instead of shrinking to a stub.
 */

/** What a cut-off object holds, closed; `closed` is how many brackets were added. */
export interface ClosedValue {
  value: Record<string, unknown>;
  closed: number;
}

/** A place to cut the text, and the brackets open there. */
interface Cut {
  at: number;
  open: string;
}

/** Cuts tried, latest first. */
const MAX_TRIES = 4;

export function closeTruncated(text: string): ClosedValue | null {
  const cuts: Cut[] = [];
  const keep = (cut: Cut) => {
    cuts.push(cut);
    if (cuts.length > MAX_TRIES) cuts.shift();
  };
  let open = '';
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i += 1;
      else if (c === 34 /* " */) inString = false;
      continue;
    }
    if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      open += c === 123 ? '}' : ']';
      keep({ at: i + 1, open });
    } else if (c === 125 /* } */ || c === 93 /* ] */) open = open.slice(0, -1);
    else if (c === 44 /* , */) keep({ at: i, open });
  }
  // Every bracket closed: not cut off (broken some other way).
  if (open.length === 0 && !inString) return null;
  if (!inString) {
    let end = text.length;
    while (end > 0 && /\s|,/.test(text[end - 1]!)) end -= 1;
    const last = text.charCodeAt(end - 1);
    if (last === 125 || last === 93 || last === 34) keep({ at: end, open });
  }
  for (let i = cuts.length - 1; i >= 0; i -= 1) {
    const cut = cuts[i]!;
    if (cut.open.length === 0) continue;
    const closers = [...cut.open].reverse().join('');
    let value: unknown;
    try {
      value = JSON.parse(text.slice(0, cut.at) + closers);
    } catch {
      continue;
    }
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      return { value: value as Record<string, unknown>, closed: closers.length };
    }
  }
  return null;
}
