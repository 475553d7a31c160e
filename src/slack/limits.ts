/**
 * Block Kit limits and the truncation helpers every renderer uses, so no message is rejected with
 * `invalid_blocks` or `msg_too_long`; the limits are Slack's documented ones (`SLACK_LIMITS`).
 */
import type { KnownBlock, PlainTextElement, SectionBlock, HeaderBlock, ContextBlock } from '@slack/types';

export const SLACK_LIMITS = {
  /** Blocks in a message. */
  messageBlocks: 50,
  /** Blocks in a modal or the App Home. */
  viewBlocks: 100,
  sectionText: 3000,
  sectionFields: 10,
  fieldText: 2000,
  headerText: 150,
  contextElements: 10,
  actionsElements: 25,
  buttonText: 75,
  buttonValue: 2000,
  blockId: 255,
  optionText: 75,
  modalTitle: 24,
  /** Top-level `text`: Slack truncates at 40 000, `chat.update` fails near 4 000 bytes; keep well under. */
  fallbackText: 3000,
  /**
   * Text of all a message's blocks together. Slack refuses a message past about 12-13 thousand
   * characters of blocks with `msg_blocks_too_long`, each block within its own limits or not (its
   * docs give no figure): keep under the lowest refusal seen.
   */
  messageText: 11_000,
  privateMetadata: 3000,
} as const;

const ELLIPSIS = '…';

/**
 * Cuts `text` to at most `max` UTF-16 units, ending with `…`. Never splits a surrogate pair or an
 * escape entity (`&amp;`), which would leave broken characters in the message.
 */
export function truncate(text: string, max: number, suffix = ELLIPSIS): string {
  if (text.length <= max) return text;
  if (max <= suffix.length) return suffix.slice(0, Math.max(0, max));
  let cut = safeCut(text, max - suffix.length);
  // An unclosed code span or fence would format the rest of the message; close it within budget.
  for (let attempt = 0; attempt < 4; attempt += 1) {
    const head = text.slice(0, cut).trimEnd();
    const closer = unclosedCode(head);
    if (head.length + suffix.length + closer.length <= max) return `${head}${suffix}${closer}`;
    cut = safeCut(text, Math.max(0, max - suffix.length - closer.length));
  }
  return `${text.slice(0, safeCut(text, max - suffix.length)).replace(/`/g, 'ˋ')}${suffix}`;
}

/** Largest cut ≤ `at` that does not split a surrogate pair, an `&…;` entity or a `<…>` token. */
function safeCut(text: string, at: number): number {
  let cut = Math.max(0, at);
  const lastAmp = text.lastIndexOf('&', cut - 1);
  if (lastAmp >= 0 && lastAmp > cut - 6) {
    const end = text.indexOf(';', lastAmp);
    if (end === -1 || end >= cut) cut = lastAmp;
  }
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
  const lastOpen = text.lastIndexOf('<', cut - 1);
  if (lastOpen >= 0 && text.lastIndexOf('>', cut - 1) < lastOpen) cut = lastOpen;
  return cut;
}

function unclosedCode(head: string): string {
  const fences = head.split('```').length - 1;
  if (fences % 2 === 1) return '```';
  const ticks = head.replace(/```/g, '').split('`').length - 1;
  return ticks % 2 === 1 ? '`' : '';
}

export function plainText(text: string, max: number = SLACK_LIMITS.sectionText): PlainTextElement {
  return { type: 'plain_text', text: truncate(text || ' ', max), emoji: true };
}

export function headerBlock(text: string): HeaderBlock {
  return { type: 'header', text: plainText(text, SLACK_LIMITS.headerText) };
}

export function sectionBlock(mrkdwn: string, extra: Partial<SectionBlock> = {}): SectionBlock {
  return { type: 'section', text: { type: 'mrkdwn', text: truncate(mrkdwn || ' ', SLACK_LIMITS.sectionText) }, ...extra };
}

/** A section of up to 10 mrkdwn fields (extra fields are dropped; use several blocks for more). */
export function fieldsBlock(fields: string[]): SectionBlock {
  return {
    type: 'section',
    fields: fields
      .slice(0, SLACK_LIMITS.sectionFields)
      .map((field) => ({ type: 'mrkdwn' as const, text: truncate(field || ' ', SLACK_LIMITS.fieldText) })),
  };
}

export function contextBlock(mrkdwnParts: string[]): ContextBlock {
  return {
    type: 'context',
    elements: mrkdwnParts
      .filter((part) => part !== '')
      .slice(0, SLACK_LIMITS.contextElements)
      .map((part) => ({ type: 'mrkdwn' as const, text: truncate(part, SLACK_LIMITS.sectionText) })),
  };
}

/**
 * Splits lines into as few section blocks as possible, each ≤ 3000 characters, all together at most
 * `maxChars`; a single long line is truncated rather than split mid-word.
 */
export function linesToSections(lines: string[], maxBlocks: number, maxChars = Infinity): { blocks: SectionBlock[]; omitted: number } {
  const blocks: SectionBlock[] = [];
  let current = '';
  let used = 0;
  let chars = 0;
  for (const line of lines) {
    const piece = truncate(line, SLACK_LIMITS.sectionText);
    // Within the message's share of text given (`maxChars`): the rest is counted as omitted.
    if (chars + piece.length > maxChars) break;
    chars += piece.length + 1;
    if (current !== '' && current.length + 1 + piece.length > SLACK_LIMITS.sectionText) {
      if (blocks.length + 1 >= maxBlocks) break;
      blocks.push(sectionBlock(current));
      current = '';
    }
    current = current === '' ? piece : `${current}\n${piece}`;
    used += 1;
  }
  if (current !== '' && blocks.length < maxBlocks) blocks.push(sectionBlock(current));
  else if (current !== '') used -= current.split('\n').length;
  return { blocks, omitted: lines.length - used };
}

/** Characters of text in `block`: every mrkdwn and plain_text string it holds (what Slack counts). */
export function blockTextLength(block: unknown): number {
  if (Array.isArray(block)) return block.reduce((sum: number, item) => sum + blockTextLength(item), 0);
  if (!block || typeof block !== 'object') return 0;
  const record = block as Record<string, unknown>;
  if ((record.type === 'mrkdwn' || record.type === 'plain_text') && typeof record.text === 'string') return record.text.length;
  let sum = 0;
  for (const value of Object.values(record)) sum += blockTextLength(value);
  return sum;
}

/** Room kept for the line that says how many blocks were left out. */
const MORE_LINE_ROOM = 60;

/**
 * Final safety net: keeps at most `max` blocks and, in a message, at most `maxText` characters of
 * text in all (`SLACK_LIMITS.messageText`; views have no such limit: pass Infinity); when cut, the
 * last kept block says how many were left out. Renderers cut their lists with counts first, so this
 * rarely fires.
 */
export function capBlocks(blocks: KnownBlock[], max: number = SLACK_LIMITS.messageBlocks, maxText: number = SLACK_LIMITS.messageText): KnownBlock[] {
  let text = 0;
  let fit = 0;
  for (const block of blocks) {
    const next = text + blockTextLength(block);
    if (fit >= max || next > maxText) break;
    text = next;
    fit += 1;
  }
  if (fit === blocks.length) return blocks;
  // Room for the count line: within the block limit, and within the text limit.
  let keep = Math.min(fit, max - 1);
  while (keep > 0 && text + MORE_LINE_ROOM > maxText) {
    keep -= 1;
    text -= blockTextLength(blocks[keep]);
  }
  const kept = blocks.slice(0, keep);
  kept.push(contextBlock([`_…${blocks.length - kept.length} more blocks not shown._`]));
  return kept;
}

/** Top-level `text` (notification and accessibility fallback), single paragraph, bounded. */
export function fallbackText(text: string): string {
  return truncate(text.replace(/\s+/g, ' ').trim() || 'StreamDoctor', SLACK_LIMITS.fallbackText);
}

/** `_…and 7 more streams not shown._`, the tail of a cut list. */
export function moreLine(omitted: number, noun = 'item', plural = `${noun}s`): string {
  return `_…and ${omitted} more ${omitted === 1 ? noun : plural} not shown._`;
}
