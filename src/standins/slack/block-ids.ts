/**
 * Slack gives every block without a block_id (and every interactive element without an action_id) a
 * short random one when the message or view is stored; apps see those ids in interaction payloads.
 */
import { randomBytes } from 'node:crypto';
import type { Json } from './types.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function shortId(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const b of bytes) out += ALPHABET[b % ALPHABET.length];
  return out;
}

function withActionId(element: unknown): unknown {
  if (typeof element !== 'object' || element === null || Array.isArray(element)) return element;
  const e = element as Json;
  // Image elements are the only non-interactive ones in these positions.
  const interactive = typeof e.type === 'string' && e.type !== 'image';
  return interactive && e.action_id === undefined ? { ...e, action_id: shortId(5) } : e;
}

/** A copy of `blocks` with ids filled in. */
export function assignBlockIds(blocks: Json[]): Json[] {
  return blocks.map((block) => {
    const out: Json = { ...block };
    if (out.block_id === undefined) out.block_id = shortId(5);
    if (Array.isArray(out.elements) && out.type === 'actions') out.elements = out.elements.map(withActionId);
    if (out.accessory !== undefined) out.accessory = withActionId(out.accessory);
    if (out.element !== undefined) out.element = withActionId(out.element);
    return out;
  });
}
