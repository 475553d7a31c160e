/**
 * Answers the Databricks APIs do not give, through the real client and sources (an HTTP client that
 * answers what each test says instead of a workspace): a statement status poll without a status, a
 * failure whose message is no text, a manifest of the wrong shape, chunk links that loop or stop
 * short, rows that are no rows or whose cells are no values of their column, an event or a run that
 * is no object or has fields of the wrong type, an event or a run stamped hours ahead. Each
 * is a clear MALFORMED_RESPONSE when the answer as a whole cannot be trusted, and otherwise is
 * skipped with a warning naming it while everything around it is read and the stored cursor stays
 * valid for the next poll.
 */
import { describe, expect, it } from 'vitest';
import { DatabricksApiError, DatabricksClient, StatementFailedError } from '../../src/databricks/index.js';
import type { DatabricksHttpClient, RequestSpec } from '../../src/databricks/http-client.js';
import { JobRunsSource, PipelineEventsSource, ProgressTableSource, type JobRunsCursor, type PipelineEventsCursor } from '../../src/sources/index.js';
import { simulatedBatches } from './simulated-progress.js';

const NOW = Date.UTC(2026, 8, 14, 12, 0, 0);

/** A client whose every request is answered by `answer` (what the HTTP client returns once it parsed the body). */
function clientAnswering(answer: (spec: RequestSpec) => unknown): { client: DatabricksClient; requests: RequestSpec[] } {
  const requests: RequestSpec[] = [];
  const http = {
    request: async (spec: RequestSpec) => {
      requests.push(spec);
      return answer(spec);
    },
  } as unknown as DatabricksHttpClient;
  return { client: new DatabricksClient(http), requests };
}

const SELECT = { statement: 'SELECT 1', warehouse_id: 'w' };
const schema = (...names: string[]) => ({ columns: names.map((name, position) => ({ name, position })) });

async function caught(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => null,
    (error: unknown) => error,
  );
}

describe('the SQL statement API', () => {
  it('a status poll answered without a status is MALFORMED_RESPONSE, not a TypeError', async () => {
    for (const polled of [{}, { statement_id: 's1' }, { statement_id: 's1', status: {} }, null]) {
      const { client } = clientAnswering((spec) => (spec.method === 'POST' ? { statement_id: 's1', status: { state: 'PENDING' } } : polled));
      const error = await caught(client.statements.query(SELECT, { pollIntervalMs: 1 }));
      expect(error).toBeInstanceOf(DatabricksApiError);
      expect(error).toMatchObject({ errorCode: 'MALFORMED_RESPONSE', message: 'Databricks answered a statement without statement_id/status' });
    }
  });

  it('a failure whose message or code is no text still says it failed, and how it ended', async () => {
    const { client } = clientAnswering(() => ({ statement_id: 's1', status: { state: 'FAILED', error: { message: { text: 'boom' }, error_code: 7 } } }));
    const error = await caught(client.statements.query(SELECT));
    expect(error).toBeInstanceOf(StatementFailedError);
    expect(error).toMatchObject({ message: 'SQL statement FAILED: statement ended FAILED', errorCode: 'FAILED' });
  });

  it('a manifest with a chunk count that is no count, or a chunk whose rows are no list, is MALFORMED_RESPONSE', async () => {
    for (const [manifest, result, what] of [
      [{ total_chunk_count: -1, schema: schema('a') }, { data_array: [['1']] }, 'total_chunk_count -1'],
      [{ total_chunk_count: 'x', schema: schema('a') }, { data_array: [['1']] }, 'total_chunk_count "x"'],
      [{ total_chunk_count: 1, schema: schema('a') }, { data_array: { a: 1 } }, 'data_array is not a list of rows'],
    ] as const) {
      const { client } = clientAnswering(() => ({ statement_id: 's1', status: { state: 'SUCCEEDED' }, manifest, result }));
      const error = await caught(client.statements.query(SELECT));
      expect(error).toMatchObject({ errorCode: 'MALFORMED_RESPONSE' });
      expect((error as Error).message).toContain(what);
    }
  });

  it('chunk links that loop are MALFORMED_RESPONSE after one lap, not thousands of reads', async () => {
    const link = '/api/2.0/sql/statements/s1/result/chunks/1';
    const { client, requests } = clientAnswering((spec) =>
      spec.method === 'POST'
        ? { statement_id: 's1', status: { state: 'SUCCEEDED' }, manifest: { total_chunk_count: 2_000, schema: schema('a') }, result: { data_array: [['1']], next_chunk_internal_link: link } }
        : { chunk_index: 1, data_array: [['x']], next_chunk_internal_link: link },
    );
    const error = await caught(client.statements.query(SELECT));
    expect(error).toMatchObject({ errorCode: 'MALFORMED_RESPONSE' });
    expect((error as Error).message).toContain('twice (a loop)');
    expect(requests.length).toBeLessThanOrEqual(3);
  });

  it('rows the manifest counts that the chunks read did not reach make the result truncated, never complete', async () => {
    // The manifest says 1 chunk of 3 rows; its links lead on to 3 chunks of one row each.
    const { client } = clientAnswering((spec) => {
      if (spec.method === 'POST') {
        return { statement_id: 's1', status: { state: 'SUCCEEDED' }, manifest: { total_chunk_count: 1, total_row_count: 3, schema: schema('a') }, result: { data_array: [['1']], next_chunk_index: 1 } };
      }
      const index = Number(/chunks\/(\d+)/.exec(spec.path)![1]);
      return { chunk_index: index, data_array: [[String(index + 1)]], ...(index < 2 ? { next_chunk_index: index + 1 } : {}) };
    });
    const result = await client.statements.query(SELECT);
    expect(result).toMatchObject({ rows: [['1']], totalRowCount: 3, truncated: true });
  });
});

describe('the progress table', () => {
  const COLUMNS = ['query_id', 'run_id', 'batch_id', 'event_ms', 'ingested_us', 'progress_json'];
  const batches = simulatedBatches('orders_agg', 3, NOW - 120_000);
  const rowOf = (batch: (typeof batches)[number], overrides: Record<number, unknown> = {}) => {
    const row: unknown[] = [batch.id, 'run-1', String(batch.batchId), String(batch.endMs), String(batch.endMs * 1_000), batch.json];
    for (const [index, value] of Object.entries(overrides)) row[Number(index)] = value;
    return row;
  };

  async function poll(odd: unknown) {
    const { client } = clientAnswering(() => ({
      statement_id: 's1',
      status: { state: 'SUCCEEDED' },
      manifest: { total_chunk_count: 1, total_row_count: 3, schema: schema(...COLUMNS) },
      result: { data_array: [rowOf(batches[0]!), odd, rowOf(batches[2]!)] },
    }));
    const source = new ProgressTableSource({ client, warehouseId: 'w', table: 'main.sd.progress', watched: { queryIds: [batches[0]!.id], queryNames: [] }, now: () => NOW });
    const first = await source.poll(null);
    // The cursor it stored is read back as valid (a poisoned one makes every poll start over).
    const second = await source.poll(JSON.parse(JSON.stringify(first.cursor)));
    return { first, second };
  }

  it.each([
    ['a row that is no list of columns', null, 'is not a list of columns'],
    ['a row with no ingested_at (SQL NULL would read as 1970)', rowOf(batches[1]!, { 4: null }), 'no usable ingested_at'],
    ['a batch_id that is no whole number', rowOf(batches[1]!, { 2: 'abc' }), 'batch_id that is not a whole number'],
  ])('%s is skipped with a warning; the rows around it are read once', async (_what, odd, warning) => {
    const { first, second } = await poll(odd);
    expect(first.progress.map((p) => p.progress.batchId)).toEqual([batches[0]!.batchId, batches[2]!.batchId]);
    expect(first.warnings).toEqual([expect.stringContaining(warning)]);
    expect(second.warnings.some((w) => w.includes('cursor'))).toBe(false);
    expect(second.progress).toEqual([]);
  });
});

describe('the pipeline event log', () => {
  const at = (ms: number) => new Date(ms).toISOString();
  const failed = { id: 'e-failed', timestamp: at(NOW - 30_000), event_type: 'update_progress', origin: { pipeline_name: 42, update_id: 'u1' }, details: { update_progress: { state: 'FAILED' } }, error: { exceptions: [{ message: { nested: 'x' } }] }, message: 'Update u1 has failed.' };

  it('an event that is no object, or has fields of the wrong type, does not fail the poll; the others are read', async () => {
    const { client } = clientAnswering(() => ({ events: [null, 7, failed, { id: 12_345, timestamp: at(NOW - 20_000), event_type: 'flow_progress', origin: { flow_name: 'orders' }, details: { flow_progress: { metrics: { backlog_files: 9 } } } }] }));
    const source = new PipelineEventsSource({ client, pipelineIds: ['p1'], now: () => NOW });
    const first = await source.poll(null);
    expect(first.signals.map((s) => s.type)).toEqual(['pipeline_failed', 'flow_backlog']);
    expect(first.signals[0]).toMatchObject({ message: 'Update u1 has failed.' });
    expect(first.signals[0]).not.toHaveProperty('pipelineName');
    expect(first.warnings).toEqual([expect.stringContaining('an event that is not an object (null)'), expect.stringContaining('an event that is not an object (7)')]);
    // A numeric id is kept as text: the cursor reads back valid, and the event is not read again.
    const second = await source.poll(JSON.parse(JSON.stringify(first.cursor)) as PipelineEventsCursor);
    expect(second.warnings).toEqual([expect.stringContaining('an event that is not an object (null)'), expect.stringContaining('an event that is not an object (7)')]);
    expect(second.signals).toEqual([]);
  });

  it('an event stamped hours ahead (a fast clock) hides no event stamped later by a clock that is right', async () => {
    const log: Record<string, unknown>[] = [
      { id: 'ahead', timestamp: at(NOW + 6 * 3_600_000), event_type: 'flow_progress', origin: { flow_name: 'orders' }, details: { flow_progress: { metrics: { backlog_files: 3 } } } },
      { id: 'before', timestamp: at(NOW - 10_000), event_type: 'flow_progress', origin: { flow_name: 'orders' }, details: { flow_progress: { metrics: { backlog_files: 1 } } } },
    ];
    // The API's listing: events from the filter's timestamp on, oldest first.
    const { client } = clientAnswering((spec) => {
      const from = Date.parse(/'(.*)'/.exec(String(spec.query?.filter))![1]!);
      const atMs = (event: Record<string, unknown>) => Date.parse(String(event.timestamp));
      return { events: log.filter((event) => atMs(event) >= from).sort((a, b) => atMs(a) - atMs(b)) };
    });
    let now = NOW;
    const source = new PipelineEventsSource({ client, pipelineIds: ['p1'], now: () => now });
    const first = await source.poll(null);
    expect(first.signals.map((s) => s.type)).toEqual(['flow_backlog', 'flow_backlog']);
    // The update fails after that poll, stamped by a clock that is right.
    log.push({ ...failed, id: 'failed-later', timestamp: at(NOW + 5_000) });
    now = NOW + 10_000;
    const second = await source.poll(JSON.parse(JSON.stringify(first.cursor)) as PipelineEventsCursor);
    expect(second.signals.map((s) => s.type)).toEqual(['pipeline_failed']);
    // The event ahead keeps its id (it is listed again until our clock passes it), with the late window's.
    expect(second.cursor.pipelines.p1).toEqual({
      newestMs: NOW + 5_000,
      seenFromMs: NOW - 15_000,
      seen: [['before', NOW - 10_000], ['failed-later', NOW + 5_000], ['ahead', NOW + 6 * 3_600_000]],
    });
  });

  it('an event list that is no list reads nothing, with a warning', async () => {
    const { client } = clientAnswering(() => ({ events: { a: 1 } }));
    const result = await new PipelineEventsSource({ client, pipelineIds: ['p1'], now: () => NOW }).poll(null);
    expect(result.warnings).toEqual(['pipeline p1: Databricks answered an event list that is not a list; read nothing from it']);
  });
});

describe('job runs', () => {
  const failedRun = (runId: unknown, extra: Record<string, unknown> = {}) => ({
    job_id: 7,
    run_id: runId,
    run_name: 'orders-stream',
    start_time: NOW - 60_000,
    end_time: NOW - 30_000,
    state: { life_cycle_state: 'TERMINATED', result_state: 'FAILED', state_message: 'Task failed' },
    ...extra,
  });

  it('a run with no run id is skipped with a warning; a run name of the wrong type does not hide the failure', async () => {
    const { client } = clientAnswering((spec) => (spec.query?.active_only ? { runs: {} } : { runs: [null, failedRun(1, { run_name: 12 }), failedRun('x')] }));
    const result = await new JobRunsSource({ client, jobs: [{ jobId: 7 }], now: () => NOW }).poll(null);
    expect(result.signals.filter((s) => s.type === 'job_run_failed')).toEqual([expect.objectContaining({ runId: 1, stateMessage: 'Task failed' })]);
    expect(result.warnings).toEqual(['job 7: 2 of the runs Databricks listed have no run id; skipped']);
  });

  it('a run stamped as ending hours ahead hides no failure that ends before it, and is reported once', async () => {
    const runs = [failedRun(1, { end_time: NOW + 6 * 3_600_000 })];
    const { client } = clientAnswering((spec) => (spec.query?.active_only ? { runs: [] } : { runs }));
    let now = NOW;
    const source = new JobRunsSource({ client, jobs: [{ jobId: 7 }], now: () => now });
    const first = await source.poll(null);
    runs.push(failedRun(2, { end_time: NOW + 5_000 }));
    now = NOW + 10_000;
    const second = await source.poll(JSON.parse(JSON.stringify(first.cursor)) as JobRunsCursor);
    const failedRuns = (result: typeof first) => result.signals.filter((s) => s.type === 'job_run_failed').map((s) => (s as { runId: number }).runId);
    expect([failedRuns(first), failedRuns(second)]).toEqual([[1], [2]]);
  });

  it('a run id printed as digits is the run it names: the cursor stays valid, and the failure is reported once', async () => {
    const { client } = clientAnswering((spec) => (spec.query?.active_only ? { runs: [] } : { runs: [failedRun('555')] }));
    const source = new JobRunsSource({ client, jobs: [{ jobId: 7 }], now: () => NOW });
    let cursor: JobRunsCursor | null = null;
    const reported: number[] = [];
    for (let poll = 0; poll < 3; poll += 1) {
      const result = await source.poll(cursor);
      expect(result.warnings).toEqual([]);
      reported.push(result.signals.filter((s) => s.type === 'job_run_failed').length);
      cursor = JSON.parse(JSON.stringify(result.cursor)) as JobRunsCursor;
    }
    expect(reported).toEqual([1, 0, 0]);
  });
});
