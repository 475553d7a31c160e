/**
 * `npm run lint` keeps the layers one-way (.dependency-cruiser.cjs, DEVELOPERS.md "Layers"): the tree
 * passes as it is, and a reversed import (core reaching into infra, a static import of the demo
 * from the composition root) fails with the rule's message. The reversed imports are written to a
 * temporary tree, never into the sources.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(new URL('../..', import.meta.url).pathname);
const DEPCRUISE = join(ROOT, 'node_modules/.bin/depcruise');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const dir = mkdtempSync(join(tmpdir(), 'sd-layers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function cruise(cwd: string, paths: string[]): { status: number | null; output: string } {
  const run = spawnSync(DEPCRUISE, ['--config', CONFIG, '--output-type', 'err-long', ...paths], { cwd, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** A tree of its own: each file path → its text, plus a tsconfig like the project's. */
function tree(name: string, files: Record<string, string>): string {
  const root = join(dir, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  writeFileSync(join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', allowImportingTsExtensions: false } }));
  return root;
}

describe('npm run lint (layers)', () => {
  it('passes on the tree as it is', () => {
    const { status, output } = cruise(ROOT, ['src', 'handlers', 'jobs']);
    expect(output).toContain('no dependency violations found');
    expect(status).toBe(0);
  });

  it('fails on core importing infra, with the rule and its message', () => {
    const root = tree('reversed', {
      'src/store/redis-store.ts': 'export class RedisStore {}\n',
      'src/diagnosis/reversed.ts': "import { RedisStore } from '../store/redis-store.js';\nexport const store = RedisStore;\n",
    });
    const { status, output } = cruise(root, ['src']);
    expect(status).not.toBe(0);
    expect(output).toContain('error core-imports-outward: src/diagnosis/reversed.ts → src/store/redis-store.ts');
    expect(output.replace(/\s+/g, ' ')).toContain('core (src/progress, src/diagnosis, src/util) is pure and imports only core; see DEVELOPERS.md, Layers');
  });

  it('fails on infra importing the app, and on a static import of the demo from the composition root', () => {
    const root = tree('outward', {
      'jobs/queues.ts': 'export const queues = 1;\n',
      'src/slack/reversed.ts': "import { queues } from '../../jobs/queues.js';\nexport const q = queues;\n",
      'src/demo/run-demo.ts': 'export const runDemo = () => 1;\n',
      'src/cli/commands/start.ts': "import { runDemo } from '../../demo/run-demo.js';\nexport const lazy = () => import('../../demo/run-demo.js');\nexport const run = runDemo;\n",
    });
    const { status, output } = cruise(root, ['src', 'jobs']);
    expect(status).not.toBe(0);
    expect(output).toContain('error infra-imports-outward: src/slack/reversed.ts → jobs/queues.ts');
    expect(output).toContain('error dev-only-statically-reached: src/cli/commands/start.ts → src/demo/run-demo.ts');
  });

  it('fails on the Slack gateway importing an operation built on it', () => {
    const root = tree('gateway', {
      'src/slack/operations/post-digest.ts': 'export const channelName = () => null;\n',
      'src/slack/gateway/slack-chat.ts': "import { channelName } from '../operations/post-digest.js';\nexport const name = channelName;\n",
    });
    const { status, output } = cruise(root, ['src']);
    expect(status).not.toBe(0);
    expect(output).toContain('error slack-gateway-below-operations: src/slack/gateway/slack-chat.ts → src/slack/operations/post-digest.ts');
  });

  it('lets the composition root load the demo with import()', () => {
    const root = tree('lazy', {
      'src/demo/run-demo.ts': 'export const runDemo = () => 1;\n',
      'src/cli/commands/start.ts': "export const run = async () => (await import('../../demo/run-demo.js')).runDemo();\n",
    });
    const { status, output } = cruise(root, ['src']);
    expect(output).toContain('no dependency violations found');
    expect(status).toBe(0);
  });
});
