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
 * Splits lines into as few section blocks as possible, each ≤ 3000 characters; a single long line
 * is truncated rather than split mid-word.
 */
export function linesToSections(lines: string[], maxBlocks: number): { blocks: SectionBlock[]; omitted: number } {
  const blocks: SectionBlock[] = [];
  let current = '';
  let used = 0;
  for (const line of lines) {
    const piece = truncate(line, SLACK_LIMITS.sectionText);
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

/**
 * Final safety net: keeps at most `max` blocks; when cut, the last kept block says how many were
 * left out. Renderers cut their lists with counts first, so this rarely fires.
 */
export function capBlocks(blocks: KnownBlock[], max: number = SLACK_LIMITS.messageBlocks): KnownBlock[] {
  if (blocks.length <= max) return blocks;
  const kept = blocks.slice(0, max - 1);
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
