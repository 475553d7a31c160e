/**
 * The static import graph of the TypeScript sources: what a module loads before any of its code runs
 * (static imports and re-exports that survive compilation; `import()` is not followed).
 */
import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readImports } from './source-imports.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A relative `.js` specifier resolves to the `.ts` file next to it (or the `.js` file when there is one). */
function resolveLocal(from: string, specifier: string): string {
  const target = resolve(dirname(from), specifier);
  if (target.endsWith('.js') && existsSync(target.replace(/\.js$/, '.ts'))) return target.replace(/\.js$/, '.ts');
  return target;
}

export interface Reached {
  /** Repository-relative source files, each with the path that first reached it. */
  files: Map<string, string[]>;
  /** Package specifiers, each with the path of files that reached it. */
  packages: Map<string, string[]>;
}

/** Walks the static imports from the entry files (repository-relative). */
export function staticGraph(entries: string[]): Reached {
  const files = new Map<string, string[]>();
  const packages = new Map<string, string[]>();
  const queue: Array<[string, string[]]> = entries.map((entry) => [join(ROOT, entry), [entry]]);
  while (queue.length > 0) {
    const [file, path] = queue.shift()!;
    const rel = relative(ROOT, file);
    if (files.has(rel)) continue;
    files.set(rel, path);
    if (!/\.(ts|js|mjs)$/.test(file) || !existsSync(file)) continue;
    for (const specifier of readImports(file).static) {
      if (specifier.startsWith('.')) {
        const target = resolveLocal(file, specifier);
        queue.push([target, [...path, relative(ROOT, target)]]);
      } else if (!specifier.startsWith('node:') && !packages.has(specifier)) {
        packages.set(specifier, [...path, specifier]);
      }
    }
  }
  return { files, packages };
}
