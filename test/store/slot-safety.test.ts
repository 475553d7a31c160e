/**
 * Every transaction and script of the store touches one hash slot: on Redis Cluster
 * a MULTI or a Lua script whose keys span slots fails with CROSSSLOT. A real Redis behind a proxy that
 * records the keys of each MULTI/EXEC and each script, grouped by hash tag (keys of one query share
 * `{q:<id>}`, of one channel `{c:<channel>}`); global keys stand alone.
 */
import { randomUUID } from 'node:crypto';
import { Command, type Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStore } from '../../src/store/index.js';
import { lagIncident } from './fixtures.js';
import { testRedis } from '../helpers/redis.js';

/** What decides a key's slot: the hash tag's content when there is one, else the whole key. */
function slotOf(key: string): string {
  const open = key.indexOf('{');
  if (open >= 0) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) return key.slice(open + 1, close);
  }
  return key;
}

const violations: string[] = [];
let raw: Redis;
let store: RedisStore;

function record(what: string, keys: string[]): void {
  const slots = new Set(keys.map(slotOf));
  if (slots.size > 1) violations.push(`${what}: ${keys.join(', ')}`);
}

/** A client whose MULTIs and scripts are checked for one slot before they run. */
function checked(redis: Redis): Redis {
  return new Proxy(redis, {
    get(target, prop, receiver) {
      if (prop === 'multi') {
        return (...args: unknown[]) => {
          const multi = (target.multi as (...a: unknown[]) => ReturnType<Redis['multi']>)(...args);
          const keys: string[] = [];
          const commands: string[] = [];
          return new Proxy(multi, {
            get(m, name, r) {
              const value = Reflect.get(m, name, r);
              if (name === 'exec') {
                return (...a: unknown[]) => {
                  record(`MULTI ${commands.join(' ')}`, keys);
                  return (value as (...x: unknown[]) => unknown).apply(m, a);
                };
              }
              if (typeof value !== 'function' || typeof name !== 'string') return value;
              return (...a: unknown[]) => {
                try {
                  keys.push(...new Command(name.replace(/Buffer$/, ''), a as string[]).getKeys().map(String));
                  commands.push(name);
                } catch {
                  // not a command (a helper of the pipeline object)
                }
                const out = (value as (...x: unknown[]) => unknown).apply(m, a);
                return out === m ? r : out;
              };
            },
          });
        };
      }
      if (prop === 'evalsha' || prop === 'eval') {
        return (script: string, numKeys: number, ...rest: unknown[]) => {
          record('script', rest.slice(0, Number(numKeys)).map(String));
          return (target[prop] as (...a: unknown[]) => unknown).call(target, script, numKeys, ...rest);
        };
      }
      const value = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

beforeAll(async () => {
  raw = testRedis();
  store = new RedisStore({ redis: checked(raw), prefix: `sdtest-slots-${randomUUID().slice(0, 8)}` });
});

afterAll(async () => {
  await new RedisStore({ redis: raw, prefix: store.keys.prefix }).deleteEverything();
  raw.disconnect();
});

describe('slot safety of the store', () => {
  it('registry, silences, detect commit, incidents and storms each touch one slot per transaction or script', async () => {
    const queryId = '7a1c0f3e-5b2d-4c8e-9f10-00000000abcd';
    const now = Date.now();
    await store.streams.upsert({ queryId, name: 'orders_enrich', source: 'ws.progress' });
    await store.silences.silence(queryId, now + 60_000, 'U0MARIA001', now);
    await store.silences.list(now);
    await store.silences.hold(`${queryId}.lag.1`, now + 60_000);
    await store.silences.releaseDue([`${queryId}.lag.1`], now + 120_000);
    await store.silences.unsilence(queryId);
    const load = await store.queries.loadForDetect(queryId);
    await store.queries.commitDetect(queryId, {
      expectedVersion: load.stateVersion, state: {}, lastSeq: load.lastSeq, snapshot: null, health: 'warning', name: null,
      lastRunId: null, lastBatchId: null, lastObservedAt: null, timeBehindSec: null,
      changes: [{ type: 'opened', queryId, queryName: 'orders_enrich', incident: lagIncident('2026-11-29T10:06:40.000Z') }], nowMs: now,
    });
    const { raw: entries } = await store.outbox.peek(queryId);
    await store.outbox.removeDrained(queryId, entries);
    const [record] = await store.incidents.listForQuery(queryId);
    await store.incidents.assignChannel(record!, 'C0DATAALRT', now);
    await store.incidents.acknowledgeFirst(record!.id, 'U0MARIA001', now);
    await store.incidents.markNotified(record!.id, 2);
    await store.storms.classify('C0DATAALRT', record!.id, now);
    await store.routing.setRoute('query', queryId, 'C0STREAMNG');
    await store.routing.bindChannel('C0INCIDENT', queryId);
    await store.routing.removeRoute('query', queryId);
    await store.jobs.record([{ jobId: '881', running: true }], now);
    await store.streams.remove(queryId);
    expect(violations).toEqual([]);
  });
});
