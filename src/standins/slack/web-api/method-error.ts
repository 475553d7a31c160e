/** A Web API failure: answered as HTTP 200 `{"ok": false, "error": code, ...extra}`. */
import type { Json } from '../types.js';

export class SlackMethodError extends Error {
  constructor(
    readonly error: string,
    readonly extra: Json = {},
  ) {
    super(error);
  }
}
