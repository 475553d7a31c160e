/**
 * The running build: StreamDoctor's version (package.json's, found by walking up from this file, so
 * it is the same from the TypeScript sources and from dist/) and Node's.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/** package.json's version, or "unknown" when it cannot be read. */
export function packageVersion(): string {
  if (cached !== undefined) return cached;
  cached = 'unknown';
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'streamdoctor' && typeof pkg.version === 'string') {
        cached = pkg.version;
        break;
      }
    } catch {
      // No package.json here: keep walking up.
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return cached;
}

export interface BuildInfo {
  version: string;
  node: string;
}

export function buildInfo(): BuildInfo {
  return { version: packageVersion(), node: process.version };
}
