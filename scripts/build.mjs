#!/usr/bin/env node
/**
 * Builds dist/: `tsc -p tsconfig.build.json` (JavaScript + source maps of src/, handlers/, jobs/),
 * plus the files the code reads next to itself at run time: every non-TypeScript, non-Markdown file
 * under those folders (the local Slack chat view's HTML, CSS and ES modules), assets/ (the chart
 * font) and manifest.yml (the local Slack's scopes), at the same relative places.
 *
 *   node scripts/build.mjs             build; exit 1 on type errors (`npm run build`)
 *   node scripts/build.mjs --if-stale  build only when a source is newer than dist/; type errors are
 *                                      printed but do not stop it (`npm start`, `npm test`, `prepare`)
 *
 * Builds into a temporary folder and swaps it in, so a process (or another test run in the same
 * tree) never sees a half-written dist/. Without TypeScript installed (`npm ci --omit=dev`) it says
 * so and leaves dist/ as it is.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(ROOT, 'dist');
const STAMP = join(DIST, '.build-stamp');
const CODE_DIRS = ['src', 'handlers', 'jobs'];
const EXTRA = ['assets', 'manifest.yml'];
const CONFIG = ['tsconfig.json', 'tsconfig.build.json', 'package.json', 'scripts/build.mjs'];
const ifStale = process.argv.includes('--if-stale');

/** Every file under `path` (a file or a folder). */
function files(path) {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true }).flatMap((entry) => files(join(path, entry.name)));
}

const isAsset = (file) => !file.endsWith('.ts') && extname(file) !== '.md';

function newestInput() {
  let newest = 0;
  for (const path of [...CODE_DIRS, ...EXTRA, ...CONFIG]) {
    for (const file of files(join(ROOT, path))) newest = Math.max(newest, statSync(file).mtimeMs);
  }
  return newest;
}

if (ifStale && existsSync(STAMP) && statSync(STAMP).mtimeMs >= newestInput()) process.exit(0);

let tsc;
try {
  tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
} catch {
  process.stderr.write(
    existsSync(DIST)
      ? 'streamdoctor build: TypeScript is not installed (npm ci --omit=dev?); keeping dist/ as it is\n'
      : 'streamdoctor build: TypeScript is not installed (npm ci --omit=dev?); build dist/ where dev dependencies are installed\n',
  );
  process.exit(0);
}

const startedAt = Date.now();
const out = join(ROOT, `dist.tmp-${process.pid}`);
rmSync(out, { recursive: true, force: true });
const result = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', out], { cwd: ROOT, encoding: 'utf8' });
if (result.error || !existsSync(join(out, 'src', 'cli', 'main.js'))) {
  rmSync(out, { recursive: true, force: true });
  process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}streamdoctor build: tsc produced no dist/ (${result.error?.message ?? `exit ${result.status}`})\n`);
  process.exit(1);
}
const typeErrors = result.status !== 0;
if (typeErrors) process.stderr.write(`${result.stdout}${result.stderr}`);

for (const dir of CODE_DIRS) {
  for (const file of files(join(ROOT, dir)).filter(isAsset)) {
    const target = join(out, relative(ROOT, file));
    mkdirSync(dirname(target), { recursive: true });
    cpSync(file, target);
  }
}
for (const path of EXTRA) cpSync(join(ROOT, path), join(out, path), { recursive: true });
// The stamp predates nothing it was built from: sources edited during the build make it stale.
writeFileSync(join(out, '.build-stamp'), `${new Date(startedAt).toISOString()}\n`);
utimesSync(join(out, '.build-stamp'), new Date(startedAt), new Date(startedAt));

// Swap: rename the old dist/ away, the new one in, then remove the old one.
const old = join(ROOT, `dist.old-${process.pid}`);
try {
  if (existsSync(DIST)) renameSync(DIST, old);
  renameSync(out, DIST);
} catch (error) {
  // Another build (a second test run in the same tree) swapped its dist/ in meanwhile: it is as
  // fresh as this one, so keep it.
  if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST' && error.code !== 'ENOENT') throw error;
  rmSync(out, { recursive: true, force: true });
}
rmSync(old, { recursive: true, force: true });

if (typeErrors) {
  process.stderr.write('streamdoctor build: dist/ was built, but tsc reported type errors (above)\n');
  process.exit(ifStale ? 0 : 1);
}
