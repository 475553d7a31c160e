/** Block Kit limits as Slack enforces them, one per check, on the app's real alert blocks. */
import { describe, expect, it } from 'vitest';
import { validateBlocks, validateView } from '../../src/standins/slack/index.js';
import { LAG_ALERT } from './helpers.js';

const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });
const button = (text: string, extra: Record<string, unknown> = {}) => ({ type: 'button', action_id: 'a', text: { type: 'plain_text', text }, ...extra });

describe('validateBlocks', () => {
  it('accepts the app alert as rendered', () => {
    expect(validateBlocks(LAG_ALERT.open.blocks, 'message')).toEqual([]);
    expect(validateBlocks(LAG_ALERT.acknowledged.blocks, 'message')).toEqual([]);
  });

  it.each([
    ['more than 50 blocks in a message', Array.from({ length: 51 }, () => ({ type: 'divider' })), '/blocks'],
    ['section text over 3000', [section('x'.repeat(3001))], '/blocks/0/text/text'],
    ['more than 10 fields', [{ type: 'section', fields: Array.from({ length: 11 }, () => ({ type: 'mrkdwn', text: 'f' })) }], '/blocks/0/fields'],
    ['a field over 2000', [{ type: 'section', fields: [{ type: 'mrkdwn', text: 'f'.repeat(2001) }] }], '/blocks/0/fields/0/text'],
    ['a header over 150', [{ type: 'header', text: { type: 'plain_text', text: 'h'.repeat(151) } }], '/blocks/0/text/text'],
    ['a mrkdwn header', [{ type: 'header', text: { type: 'mrkdwn', text: '*h*' } }], '/blocks/0/text/type'],
    ['more than 25 action elements', [{ type: 'actions', elements: Array.from({ length: 26 }, () => button('b')) }], '/blocks/0/elements'],
    ['button text over 75', [{ type: 'actions', elements: [button('b'.repeat(76))] }], '/blocks/0/elements/0/text/text'],
    ['a button style Slack does not know', [{ type: 'actions', elements: [button('b', { style: 'warning' })] }], '/blocks/0/elements/0/style'],
    ['block_id over 255', [{ ...section('x'), block_id: 'b'.repeat(256) }], '/blocks/0/block_id'],
    ['action_id over 255', [{ type: 'actions', elements: [button('b', { action_id: 'a'.repeat(256) })] }], '/blocks/0/elements/0/action_id'],
    ['an unknown block type', [{ type: 'carousel' }], '/blocks/0/type'],
    ['a section with neither text nor fields', [{ type: 'section' }], '/blocks/0'],
    ['an image without alt_text', [{ type: 'image', image_url: 'https://example.com/chart.png' }], '/blocks/0/alt_text'],
    ['more than 10 context elements', [{ type: 'context', elements: Array.from({ length: 11 }, () => ({ type: 'mrkdwn', text: 'c' })) }], '/blocks/0/elements'],
    ['a duplicate block_id', [{ ...section('a'), block_id: 'same' }, { ...section('b'), block_id: 'same' }], '/blocks/1/block_id'],
    ['a select without options', [{ type: 'actions', elements: [{ type: 'static_select', action_id: 's' }] }], '/blocks/0/elements/0'],
  ])('rejects %s', (_name, blocks, pointer) => {
    const messages = validateBlocks(blocks, 'message');
    expect(messages.length).toBeGreaterThan(0);
    expect(messages.some((m) => m.startsWith('[ERROR] ') && m.endsWith(`[json-pointer:${pointer}]`))).toBe(true);
  });

  it('allows exactly the limits', () => {
    expect(validateBlocks(Array.from({ length: 50 }, () => ({ type: 'divider' })), 'message')).toEqual([]);
    expect(validateBlocks([section('x'.repeat(3000)), { type: 'header', text: { type: 'plain_text', text: 'h'.repeat(150) } }], 'message')).toEqual([]);
    expect(validateBlocks([{ type: 'actions', elements: Array.from({ length: 25 }, () => button('b'.repeat(75))) }], 'message')).toEqual([]);
  });

  it('caps the number of explanations for a hostile payload', () => {
    const blocks = Array.from({ length: 5000 }, () => ({ type: 'nope' }));
    expect(validateBlocks(blocks, 'modal').length).toBeLessThanOrEqual(50);
  });
});

describe('validateView', () => {
  it('allows 100 blocks in modals and Home, not 101', () => {
    const hundred = Array.from({ length: 100 }, () => ({ type: 'divider' }));
    expect(validateView({ type: 'home', blocks: hundred }, 'home')).toEqual([]);
    expect(validateView({ type: 'home', blocks: [...hundred, { type: 'divider' }] }, 'home')).toEqual([
      '[ERROR] no more than 100 items allowed [json-pointer:/view/blocks]',
    ]);
  });

  it('needs a modal title of at most 24 characters and a submit button when there are inputs', () => {
    expect(validateView({ type: 'modal', blocks: [] }, 'modal')[0]).toContain('/view/title');
    const input = { type: 'input', label: { type: 'plain_text', text: 'Duration' }, element: { type: 'plain_text_input', action_id: 'd' } };
    expect(validateView({ type: 'modal', title: { type: 'plain_text', text: 'Mute' }, blocks: [input] }, 'modal')).toEqual([
      '[ERROR] submit is required when blocks contain input [json-pointer:/view/submit]',
    ]);
    expect(validateView({ type: 'home', blocks: [] }, 'modal')).toEqual(['[ERROR] must be modal [json-pointer:/view/type]']);
  });
});
