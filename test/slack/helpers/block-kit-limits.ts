/** Checks a message or view against the Block Kit limits Slack enforces; returns the violations. */
import type { KnownBlock } from '@slack/types';

export function blockKitViolations(blocks: KnownBlock[], maxBlocks = 50): string[] {
  const problems: string[] = [];
  if (blocks.length > maxBlocks) problems.push(`${blocks.length} blocks > ${maxBlocks}`);
  // A message (not a view) whose blocks hold too much text in all: msg_blocks_too_long.
  const text = blockText(blocks).length;
  if (maxBlocks === 50 && text > 11_000) problems.push(`${text} characters of text in all > 11000`);
  blocks.forEach((block, index) => {
    const at = `block ${index} (${block.type})`;
    const anyBlock = block as unknown as Record<string, any>;
    if (anyBlock.block_id && anyBlock.block_id.length > 255) problems.push(`${at}: block_id too long`);
    if (block.type === 'header' && block.text.text.length > 150) problems.push(`${at}: header ${block.text.text.length} > 150`);
    if (block.type === 'section') {
      if (block.text && block.text.text.length > 3000) problems.push(`${at}: text ${block.text.text.length} > 3000`);
      if (!block.text && !block.fields) problems.push(`${at}: section without text or fields`);
      if (block.text && block.text.text.length === 0) problems.push(`${at}: empty text`);
      if (block.fields) {
        if (block.fields.length > 10) problems.push(`${at}: ${block.fields.length} fields > 10`);
        block.fields.forEach((field) => {
          if (field.text.length > 2000) problems.push(`${at}: field ${field.text.length} > 2000`);
        });
      }
    }
    if (block.type === 'context') {
      if (block.elements.length > 10) problems.push(`${at}: ${block.elements.length} elements > 10`);
      if (block.elements.length === 0) problems.push(`${at}: empty context`);
    }
    if (block.type === 'actions') {
      if (block.elements.length > 25) problems.push(`${at}: ${block.elements.length} elements > 25`);
      for (const element of block.elements as Record<string, any>[]) {
        if (element.text?.text && element.text.text.length > 75) problems.push(`${at}: button text > 75`);
        if (element.value && element.value.length > 2000) problems.push(`${at}: value > 2000`);
        for (const option of element.options ?? []) if (option.value.length > 150) problems.push(`${at}: option value > 150`);
      }
    }
  });
  return problems;
}

/** Every mrkdwn and plain text string in the blocks, joined, for content assertions. */
export function blockText(blocks: KnownBlock[], only?: 'mrkdwn' | 'plain_text'): string {
  const out: string[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      if ((record.type === 'mrkdwn' || record.type === 'plain_text') && typeof record.text === 'string') {
        if (!only || only === record.type) out.push(record.text);
      }
      else Object.values(record).forEach(walk);
    }
  };
  walk(blocks);
  return out.join('\n');
}

/** Strings that would be live markup if a hostile name leaked through unescaped. */
export function hasRawInjection(text: string): boolean {
  return /<!channel>|<!here>|<!everyone>|<@U0EVIL>|<https:\/\/evil/.test(text);
}
