/**
 * Reading request bodies the way the Web API accepts them: application/json,
 * application/x-www-form-urlencoded (where structured arguments arrive as JSON strings) and
 * multipart/form-data (what @slack/web-api sends when an argument is binary).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyTooLargeError } from './body-too-large-error.js';
import type { Json } from './types.js';

export { BodyTooLargeError };

/** Reads the whole body, refusing more than `maxBytes`. */
export function readRawBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > maxBytes) {
        failed = true;
        reject(new BodyTooLargeError(`request body is larger than ${maxBytes} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!failed) resolve(Buffer.concat(chunks));
    });
    req.on('error', (err) => {
      if (!failed) reject(err);
    });
  });
}

export interface ParsedArgs {
  args: Record<string, unknown>;
  /** Binary parts of a multipart body, by field name. */
  binary: Record<string, Buffer>;
  format: 'json' | 'form' | 'multipart' | 'empty';
}

/** Parses a Web API request body; throws `SyntaxError` for JSON that does not parse. */
export async function parseArgs(contentType: string | undefined, raw: Buffer): Promise<ParsedArgs> {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (raw.length === 0) return { args: {}, binary: {}, format: 'empty' };
  if (type === 'application/json') {
    const parsed: unknown = JSON.parse(raw.toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new SyntaxError('JSON body must be an object');
    }
    return { args: parsed as Record<string, unknown>, binary: {}, format: 'json' };
  }
  if (type === 'multipart/form-data') {
    // undici's multipart parser (Node 20 built-in) reads what fetch's FormData produced.
    const form = await new Response(new Uint8Array(raw), { headers: { 'content-type': contentType! } }).formData();
    const args: Record<string, unknown> = {};
    const binary: Record<string, Buffer> = {};
    for (const [key, value] of form.entries()) {
      if (typeof value === 'string') args[key] = value;
      else {
        binary[key] = Buffer.from(await value.arrayBuffer());
        if (value.name) args[`${key}__filename`] = value.name;
      }
    }
    return { args, binary, format: 'multipart' };
  }
  // Slack treats anything else as form-encoded.
  const params = new URLSearchParams(raw.toString('utf8'));
  const args: Record<string, unknown> = {};
  for (const [key, value] of params) args[key] = value;
  return { args, binary: {}, format: 'form' };
}

/** A structured argument that may arrive as a JSON string (form bodies) or as JSON (JSON bodies). */
export function jsonArg(value: unknown): { ok: true; value: unknown } | { ok: false } {
  if (typeof value !== 'string') return { ok: true, value };
  try {
    return { ok: true, value: JSON.parse(value) };
  } catch {
    return { ok: false };
  }
}

export function stringArg(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

export function boolArg(value: unknown): boolean {
  return value === true || value === 'true' || value === '1' || value === 1;
}

export function sendJson(res: ServerResponse, status: number, body: Json | unknown[], headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(text);
}
