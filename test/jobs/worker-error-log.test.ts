/** A Redis outage makes every worker repeat one connection error: one line per kind per interval, with a count. */
import { describe, expect, it } from 'vitest';
import { throttledWorkerErrors } from '../../jobs/workers.js';

describe('worker error lines', () => {
  it('fold repeats of a kind into the next line, kinds apart', () => {
    const lines: { obj: Record<string, unknown>; msg: string }[] = [];
    let nowMs = 0;
    const log = throttledWorkerErrors({ error: ((obj: Record<string, unknown>, msg: string) => void lines.push({ obj, msg })) as never }, 30_000, () => nowMs);
    const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });
    for (let i = 0; i < 50; i++) {
      log('poll', refused());
      nowMs += 100;
    }
    log('detect', new Error('Connection is closed.'));
    expect(lines.map((l) => l.msg)).toEqual(['worker error', 'worker error']);
    expect(lines[0]!.obj).toMatchObject({ queue: 'poll', kind: 'ECONNREFUSED' });
    nowMs += 30_000;
    log('notify', refused());
    expect(lines[2]!.msg).toBe('worker error (and 49 more of this kind in the last 35 s)');
    expect(lines[2]!.obj).toMatchObject({ kind: 'ECONNREFUSED', folded: 49 });
  });
});
