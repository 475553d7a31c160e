/**
 * Identifiers in the watch file as Databricks reads them: a query id in any case is the lower-case
 * id Spark writes (the SQL filter and routing compare exactly), and `progress_table` is refused where
 * Databricks refuses it (an unquoted hyphen), with the exact way to write it.
 */
import { describe, expect, it } from 'vitest';
import { loadWatchConfig } from '../../src/config/index.js';

const ORDERS = '8f3c2a51-6b0e-4d7a-9c1e-2b5f7d9a0e34';

function watchFile(progressTable: string, streams: string) {
  return `workspaces:
  - name: prod
    host: https://adb-1234567890123456.7.azuredatabricks.net
    auth: { token_env: DATABRICKS_TOKEN }
    warehouse_id: 4b9b953939869799
    progress_table: ${progressTable}
streams:
${streams}
defaults:
  channel: "#streaming-alerts"
`;
}

describe('watch file: query ids', () => {
  it('reads an upper-case query_id as the lower-case id Spark writes', () => {
    const result = loadWatchConfig(watchFile('main.streamdoctor.streaming_progress', `  - query_id: ${ORDERS.toUpperCase()}\n    channel: "#orders"`), 'streamdoctor.yml');
    if (!result.ok) throw new Error(result.message);
    expect(result.config.streams[0]!.queryId).toBe(ORDERS);
  });

  it('finds the same id written in two cases a duplicate', () => {
    const result = loadWatchConfig(watchFile('main.streamdoctor.streaming_progress', `  - query_id: ${ORDERS}\n  - query_id: ${ORDERS.toUpperCase()}`), 'streamdoctor.yml');
    if (result.ok) throw new Error('expected the file to be rejected');
    expect(result.message).toContain('streams[1]: the same stream is listed twice (also at streams[0])');
  });
});

describe('watch file: progress_table', () => {
  it('refuses an unquoted hyphen and says exactly how to write the name', () => {
    const result = loadWatchConfig(watchFile('dev-catalog.streamdoctor.streaming_progress', '  - name: orders'), 'streamdoctor.yml');
    if (result.ok) throw new Error('expected the file to be rejected');
    expect(result.message).toContain('streamdoctor.yml:6:21 workspaces[0].progress_table: has "dev-catalog" unquoted');
    expect(result.message).toContain('progress_table: "`dev-catalog`.streamdoctor.streaming_progress"');
  });

  it('accepts back-quoted parts, a doubled backquote inside, and keeps the name as written for IDENTIFIER(:table)', () => {
    for (const name of ['`dev-catalog`.streamdoctor.streaming_progress', '`dev-catalog`.`stream.doctor`.`prog``ress`', 'main.`streamdoctor`.streaming_progress']) {
      const result = loadWatchConfig(watchFile(JSON.stringify(name), '  - name: orders'), 'streamdoctor.yml');
      if (!result.ok) throw new Error(result.message);
      expect(result.config.workspaces[0]!.progressTable).toBe(name);
    }
  });

  it('refuses other characters unquoted, an open backquote and names not of three parts', () => {
    for (const [name, expected] of [
      ['main.stream$.progress', 'progress_table: "main.`stream$`.progress"'],
      ['"`dev-catalog.streamdoctor.streaming_progress"', 'must be a three-part name'],
      ['streamdoctor.streaming_progress', 'must be a three-part name'],
      ['main..streaming_progress', 'must be a three-part name'],
    ] as const) {
      const result = loadWatchConfig(watchFile(name, '  - name: orders'), 'streamdoctor.yml');
      if (result.ok) throw new Error(`expected ${name} to be rejected`);
      expect(result.message).toContain(expected);
    }
  });
});
