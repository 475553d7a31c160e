/**
 * package.json says what the code uses: every package the production code (src/, handlers/, jobs/,
 * bin/streamdoctor.mjs) imports is a dependency, every dependency is imported by it, and every dev
 * dependency is used by the tests, benches, scripts or tooling.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { packageName, readImports } from './source-imports.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

function sources(path: string): string[] {
  const full = join(ROOT, path);
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full, { withFileTypes: true }).flatMap((entry) => {
    const child = join(path, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'fixtures' || entry.name.startsWith('.') ? [] : sources(child);
    return /\.(ts|mts|mjs|js)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [child] : [];
  });
}

/** Packages imported at run time (static or dynamic; type-only imports are erased) by the files. */
function packagesUsed(files: string[], options: { types?: boolean } = {}): Map<string, string[]> {
  const used = new Map<string, string[]>();
  for (const file of files) {
    const imports = readImports(join(ROOT, file));
    for (const specifier of [...imports.static, ...imports.dynamic, ...(options.types ? imports.typeOnly : [])]) {
      const name = packageName(specifier);
      if (name === null || builtinModules.includes(name)) continue;
      used.set(name, [...(used.get(name) ?? []), file]);
    }
  }
  return used;
}

const PRODUCTION = [...sources('src'), ...sources('handlers'), ...sources('jobs'), 'bin/streamdoctor.mjs'];
const TOOLING = [...sources('test'), ...sources('bench'), ...sources('scripts'), 'bin/run-ts.mjs', 'vitest.config.ts'];

/** Dev dependencies used other than by an import, and where. */
const DEV_WITHOUT_IMPORT: Record<string, string> = {
  typescript: 'tsc: npm run build (scripts/build.mjs), npm run typecheck',
  '@types/node': 'the types of node:* for tsc',
  vite: 'vitest runs on it; pinned to the 8.3.x line Node 20 needs',
  'dependency-cruiser': 'npm run lint: the layer rules (.dependency-cruiser.cjs, test/lint/layers.test.ts)',
  '@swc/core': "dependency-cruiser's TypeScript parser (TypeScript 7 has no compiler API for it)",
};

describe('declared dependencies', () => {
  it('production code imports only dependencies (not dev dependencies, not undeclared packages)', () => {
    const used = packagesUsed(PRODUCTION, { types: true });
    const undeclared = [...used].filter(([name]) => !(name in pkg.dependencies)).map(([name, files]) => `${name} (${files[0]})`);
    expect(undeclared).toEqual([]);
  });

  it('every dependency is imported by production code', () => {
    const used = packagesUsed(PRODUCTION, { types: true });
    expect(Object.keys(pkg.dependencies).filter((name) => !used.has(name))).toEqual([]);
  });

  it('every dev dependency is used by tests, benches, scripts or tooling', () => {
    const used = packagesUsed(TOOLING, { types: true });
    const unused = Object.keys(pkg.devDependencies).filter((name) => !used.has(name) && !(name in DEV_WITHOUT_IMPORT));
    expect(unused).toEqual([]);
    const undeclared = [...used].filter(([name]) => !(name in pkg.dependencies) && !(name in pkg.devDependencies)).map(([name, files]) => `${name} (${files[0]})`);
    expect(undeclared).toEqual([]);
  });

  it('versions are pinned exactly', () => {
    const ranges = Object.entries({ ...pkg.dependencies, ...pkg.devDependencies }).filter(([, version]) => !/^\d+\.\d+\.\d+$/.test(version));
    expect(ranges).toEqual([]);
  });
});
