/**
 * The chat view's files: plain HTML, CSS and ES modules next to this file, served as they are (no
 * build step). Only the listed names are served; a strict CSP keeps any script but ours out.
 */
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';

const ASSETS: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'chat-view.css': 'text/css; charset=utf-8',
  'chat-view.js': 'text/javascript; charset=utf-8',
  'block-kit-html.js': 'text/javascript; charset=utf-8',
  'mrkdwn-html.js': 'text/javascript; charset=utf-8',
};

const CSP = "default-src 'self'; img-src 'self' data: http: https:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'";

export function isChatViewAsset(name: string): boolean {
  return Object.hasOwn(ASSETS, name);
}

export async function serveChatViewAsset(res: ServerResponse, name: string): Promise<void> {
  const type = ASSETS[name];
  if (!type) {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
    return;
  }
  const body = await readFile(new URL(`./${name}`, import.meta.url));
  res.writeHead(200, {
    'content-type': type,
    'content-length': body.length,
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
    'content-security-policy': CSP,
  });
  res.end(body);
}
