import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const python = spawnSync('python3', ['--version']).status === 0;
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

describe('listener/streamdoctor_listener.py', () => {
  it.skipIf(!python)('queues in the callback, appends in one write, keeps rows when a write fails', () => {
    const result = spawnSync('python3', ['-B', here('./pyspark-stub/check_listener.py'), here('./pyspark-stub'), here('../../listener')], { encoding: 'utf8', timeout: 20_000 });
    expect(result.stdout.trim()).toBe('listener ok');
    // The failed write is reported, and contained.
    expect(result.stderr.trim()).toBe('streamdoctor listener: could not append to main.streamdoctor.streaming_progress: table is locked');
  });
});
