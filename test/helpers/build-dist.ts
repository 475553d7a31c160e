/**
 * vitest globalSetup: tests that spawn `bin/streamdoctor.mjs` run the compiled dist/, so build it
 * first when a source is newer (a no-op in well under a second otherwise).
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: root, stdio: 'inherit' });
}
