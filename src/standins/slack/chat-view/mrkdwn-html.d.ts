export interface RenderContext {
  users?: Record<string, string>;
  channels?: Record<string, string>;
  nowMs?: number;
}
export function escapeHtml(text: unknown): string;
export function isSafeHref(url: unknown): boolean;
export function formatSlackDate(epochSec: number, format: string, nowMs?: number): string | null;
export function mrkdwnToHtml(text: unknown, ctx?: RenderContext): string;
export function plainToHtml(text: unknown, emoji?: boolean): string;
export function textObjectToHtml(obj: unknown, ctx?: RenderContext): string;
