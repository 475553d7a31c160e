/**
 * docs/production.md stays true: its links resolve, its environment table lists exactly the
 * variables the code reads, the example watch file it tells people to copy loads cleanly, and its
 * process table matches the Procfile.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadWatchConfig } from '../../src/config/index.js';
import { DATABRICKS_CREDENTIAL_VARS, SLACK_CREDENTIAL_VARS } from '../../src/cli/start-mode.js';

const ROOT = resolve(new URL('../..', import.meta.url).pathname);
const DOC_PATH = join(ROOT, 'docs/production.md');
const doc = readFileSync(DOC_PATH, 'utf8');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mjs)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Names the product reads: env.X / process.env.X and the pure readers' value(env, 'X') helpers. */
function variablesReadByCode(): Set<string> {
  const names = new Set<string>();
  const patterns = [
    /\b(?:process\.env|env|envVars|io\.env)\.([A-Z][A-Z0-9_]{2,})\b/g,
    /\b(?:process\.env|env|envVars)\[['"]([A-Z][A-Z0-9_]{2,})['"]\]/g,
    /\b(?:value|text|positive)\(env, '([A-Z][A-Z0-9_]{2,})'/g,
  ];
  for (const dir of ['src', 'jobs', 'handlers', 'bin']) {
    for (const file of sourceFiles(join(ROOT, dir))) {
      const text = readFileSync(file, 'utf8');
      for (const pattern of patterns) for (const match of text.matchAll(pattern)) names.add(match[1]!);
    }
  }
  names.delete('PATH'); // read to find redis-server, not a setting
  return names;
}

function tableVariables(): Set<string> {
  const section = doc.slice(doc.indexOf('## 5. Environment variables'), doc.indexOf('## 6.'));
  const names = new Set<string>();
  for (const line of section.split('\n')) {
    if (!line.startsWith('| `')) continue;
    const firstCell = line.split('|')[1]!;
    for (const match of firstCell.matchAll(/`([A-Z][A-Z0-9_]+)`/g)) names.add(match[1]!);
  }
  return names;
}

describe('docs/production.md', () => {
  it('links only to files that exist', () => {
    const links = [...doc.matchAll(/\]\(([^)#]+)(#[^)]*)?\)/g)].map((m) => m[1]!).filter((href) => !/^https?:/.test(href));
    expect(links.length).toBeGreaterThanOrEqual(6);
    for (const href of links) expect(existsSync(resolve(dirname(DOC_PATH), href)), href).toBe(true);
  });

  it('lists exactly the environment variables the code reads', () => {
    const read = variablesReadByCode();
    const listed = tableVariables();
    expect(read.size).toBeGreaterThan(15);
    expect([...read].filter((name) => !listed.has(name)).sort(), 'read by the code but missing from the table').toEqual([]);
    expect([...listed].filter((name) => !read.has(name)).sort(), 'in the table but read nowhere').toEqual([]);
  });

  it('names every credential variable that turns the demo off', () => {
    const section = doc.slice(doc.indexOf('`npm start` runs the demo when none of'));
    for (const name of [...SLACK_CREDENTIAL_VARS, ...DATABRICKS_CREDENTIAL_VARS]) expect(section.slice(0, 400)).toContain(`\`${name}\``);
  });

  it('points at an example watch file that loads without a mistake', () => {
    expect(doc).toContain('cp examples/streamdoctor.example.yml streamdoctor.yml');
    const path = join(ROOT, 'examples/streamdoctor.example.yml');
    const result = loadWatchConfig(readFileSync(path, 'utf8'), path);
    if (!result.ok) throw new Error(result.message);
    expect(result.config.workspaces.length).toBeGreaterThan(0);
  });

  it('describes the processes the Procfile runs', () => {
    const procfile = readFileSync(join(ROOT, 'Procfile'), 'utf8');
    const processes = [...procfile.matchAll(/^([a-z]+):\s*node bin\/streamdoctor\.mjs ([a-z]+)\s*$/gm)].map((m) => [m[1], m[2]]);
    expect(processes.map(([name]) => name).sort()).toEqual(['clock', 'web', 'worker']);
    for (const [name, command] of processes) {
      expect(name).toBe(command);
      expect(doc).toMatch(new RegExp(`\\| \`${name}\` \\|`));
    }
  });
});
