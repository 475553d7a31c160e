/**
 * `/stream diagnose` on too few reports to judge gives no green: one report far behind said "🟢 ok ·
 * No incidents: keeping up". It says how many it read, that it cannot tell yet, and the latest figures.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';
import type { SlackDeps } from '../../src/slack/deps.js';
import { diagnoseText } from '../../src/slack/operations/diagnose-input.js';
import { PermissionChecker } from '../../src/slack/permissions.js';
import { blockText } from './helpers/block-kit-limits.js';

const deps = { store: {} as SlackDeps['store'], permissions: new PermissionChecker(), logger: createLogger({ name: 'diagnose-few', level: 'silent' }) } satisfies SlackDeps;
const behind = readFileSync(new URL('../fixtures/progress/databricks-kafka-delta-agg-behind.json', import.meta.url), 'utf8');

describe('diagnose on too few reports', () => {
  it('one report far behind: not judged yet, with its figures, never green', async () => {
    const message = await diagnoseText(behind, deps, 'the pasted text');
    const text = blockText(message.blocks);
    expect(text).not.toContain('🟢');
    expect(text).not.toContain('keeping up.');
    expect(text).toContain('not judged yet');
    expect(text).toMatch(/No incident in 1 report, too few to tell whether it keeps up .*The latest: .* behind · batch 41s/);
    expect(message.text).toContain('too few reports to tell');
  });
});
