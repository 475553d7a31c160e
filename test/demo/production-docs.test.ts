/**
 * docs/production.md stays true: its links resolve, its environment table lists exactly the
 * variables of the environment schema (src/config/env.ts) with their defaults, the example watch
 * file it tells people to copy loads cleanly, and its process table matches the Procfile.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENV_VARIABLES, loadWatchConfig } from '../../src/config/index.js';
import type { EnvVariableName } from '../../src/config/env.js';
import { DATABRICKS_CREDENTIAL_VARS, SLACK_CREDENTIAL_VARS } from '../../src/config/start-mode.js';

const ROOT = resolve(new URL('../..', import.meta.url).pathname);
const DOC_PATH = join(ROOT, 'docs/production.md');
const doc = readFileSync(DOC_PATH, 'utf8');

/** The rows of the environment table: the variables each names, and its default cell. */
function tableRows(): { names: string[]; defaultCell: string }[] {
  const section = doc.slice(doc.indexOf('## 5. Environment variables'), doc.indexOf('## 6.'));
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const cells = line.split('|');
      return { names: [...cells[1]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!), defaultCell: cells[2]!.trim() };
    });
}

describe('docs/production.md', () => {
  it('links only to files that exist', () => {
    const links = [...doc.matchAll(/\]\(([^)#]+)(#[^)]*)?\)/g)].map((m) => m[1]!).filter((href) => !/^https?:/.test(href));
    expect(links.length).toBeGreaterThanOrEqual(6);
    for (const href of links) expect(existsSync(resolve(dirname(DOC_PATH), href)), href).toBe(true);
  });

  it('lists exactly the variables of the environment schema, with their defaults', () => {
    const rows = tableRows();
    const listed = rows.flatMap((row) => row.names);
    const schema = Object.keys(ENV_VARIABLES) as EnvVariableName[];
    expect(schema.length).toBeGreaterThan(15);
    expect(schema.filter((name) => !listed.includes(name)).sort(), 'in the schema but missing from the table').toEqual([]);
    expect(listed.filter((name) => !(name in ENV_VARIABLES)).sort(), 'in the table but not in the schema').toEqual([]);
    for (const row of rows) {
      const defaults = [...new Set(row.names.map((name) => ENV_VARIABLES[name as EnvVariableName].docDefault))];
      expect(row.defaultCell, row.names.join(', ')).toBe(defaults.join(', '));
    }
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
