/**
 * A pipeline flow's events can reach the local event log late (`lateFraction`, `lateByMs`), as a
 * driver's events reach the real one after events stamped later: a listing made before they arrive
 * does not hold them, later listings hold them in their timestamp's place, numbered as they arrived.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';
import { simulator } from '../sources/simulated-progress.js';

const PAT = 'dapi-local-event-late-000000000001';
const START = Date.UTC(2026, 8, 14, 10);
const PIPELINE = '7e2f3a4b-aaaa-bbbb-cccc-0123456789ab';
let local: LocalDatabricks;

interface ListedEvent {
  id: string;
  timestamp: string;
  event_type: string;
  origin: { flow_name?: string };
  sequence: { control_plane_seq_no: number };
}

beforeEach(async () => {
  local = await startLocalDatabricks({ tokens: [PAT], startMs: START, speed: 0, pipelines: [{ pipelineId: PIPELINE, name: 'orders-dlt' }] });
});
afterEach(async () => local.close());

async function listed(): Promise<ListedEvent[]> {
  const response = await fetch(`${local.url}/api/2.0/pipelines/${PIPELINE}/events?max_results=1000&order_by=${encodeURIComponent('timestamp asc')}`, { headers: { Authorization: `Bearer ${PAT}` } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { events: ListedEvent[] }).events;
}

describe('local Databricks: pipeline events that arrive late', () => {
  it('lists a late flow\'s events only once they arrive, in their timestamp\'s place, after events stamped later', async () => {
    local.addStream('silver', { generator: simulator('silver_orders', START, 3), pipelineId: PIPELINE, lateFraction: 1, lateByMs: 25_000 });
    local.addStream('gold', { generator: simulator('gold_orders', START, 4), pipelineId: PIPELINE });
    local.clock.advance(60_000);
    const before = await listed();
    const stamp = (event: ListedEvent) => Date.parse(event.timestamp);
    const silverBefore = before.filter((event) => event.origin.flow_name === 'silver_orders');
    const gold = before.filter((event) => event.origin.flow_name === 'gold_orders');
    // Silver's batches that ended within the last 25 s have not arrived; gold's events stamped after them have.
    expect(silverBefore.every((event) => stamp(event) <= START + 35_000)).toBe(true);
    expect(gold.some((event) => stamp(event) > START + 35_000)).toBe(true);

    local.clock.advance(25_000);
    const after = await listed();
    const arrived = after.filter((event) => event.origin.flow_name === 'silver_orders' && !silverBefore.some((seen) => seen.id === event.id));
    expect(arrived.length).toBeGreaterThan(0);
    // Stamped before events already listed, numbered after them (in the order they reached the log).
    const newestListedMs = Math.max(...before.map(stamp));
    expect(arrived.some((event) => stamp(event) < newestListedMs)).toBe(true);
    const newestSeq = Math.max(...before.map((event) => event.sequence.control_plane_seq_no));
    expect(arrived.every((event) => event.sequence.control_plane_seq_no > newestSeq)).toBe(true);
    // The listing is still in timestamp order, the late events in their place.
    expect(after.map(stamp)).toEqual([...after.map(stamp)].sort((a, b) => a - b));
    expect(new Set(after.map((event) => event.id)).size).toBe(after.length);
    expect(arrived.map((event) => event.event_type).sort()).toEqual([...Array(arrived.length / 2).fill('flow_progress'), ...Array(arrived.length / 2).fill('stream_progress')]);
  });
});
