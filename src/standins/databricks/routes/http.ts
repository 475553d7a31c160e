/**
 * The wire helpers every route shares: Databricks' error shape (`error_code` + `message`), JSON
 * answers, bounded body reads and the query-parameter parsing the real API applies.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

// Above the real 16 MiB request limit, so only a runaway client hits it.
const MAX_BODY = 17 * 1024 * 1024;

/** Thrown by a route; the server answers it as `{ error_code, message }` with its status and headers. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(new HttpError(413, 'INVALID_PARAMETER_VALUE', 'Request body too large.'));
        req.destroy();
        return;
      }
      parts.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** An empty body reads as `{}`; anything but a JSON object is MALFORMED_REQUEST, as Databricks answers. */
export function parseJsonBody(text: string): Record<string, unknown> {
  if (!text.trim()) return {};
  try {
    const value = JSON.parse(text) as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new HttpError(400, 'MALFORMED_REQUEST', 'Could not parse request object: the body is not a JSON object.');
}

export function intParam(params: URLSearchParams, name: string): number | undefined {
  const value = params.get(name);
  if (value === null || value === '') return undefined;
  if (!/^-?\d+$/.test(value)) throw new HttpError(400, 'INVALID_PARAMETER_VALUE', `Invalid value for parameter ${name}: '${value}' is not an integer.`);
  return Number(value);
}

export function boolParam(params: URLSearchParams, name: string): boolean {
  const value = params.get(name);
  return value === 'true' || value === 'True' || value === '1';
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
