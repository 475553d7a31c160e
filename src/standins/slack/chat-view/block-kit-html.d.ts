import type { RenderContext } from './mrkdwn-html.js';
export interface BlockRenderContext extends RenderContext {
  userList?: { id: string; name: string }[];
  channelList?: { id: string; name: string }[];
  errors?: Record<string, string>;
}
export function elementHtml(element: unknown, blockId: unknown, ctx?: BlockRenderContext): string;
export function blockHtml(block: unknown, ctx?: BlockRenderContext): string;
export function blocksHtml(blocks: unknown, ctx?: BlockRenderContext): string;
export function attachmentsHtml(attachments: unknown, ctx?: BlockRenderContext): string;
export function filesHtml(files: unknown): string;
export function messageBodyHtml(message: unknown, ctx?: BlockRenderContext): string;
