import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const scalac = spawnSync('scalac', ['-version']).status === 0;
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

describe('listener/StreamDoctorListener.scala', () => {
  it.skipIf(!scalac)('type-checks against the Spark API signatures it uses', () => {
    const out = mkdtempSync(join(tmpdir(), 'sd-scala-'));
    try {
      const result = spawnSync('scalac', ['-d', out, here('./spark-stub-scala/SparkApi.scala'), here('../../listener/StreamDoctorListener.scala')], {
        encoding: 'utf8',
        timeout: 120_000,
      });
      expect(result.stderr + result.stdout).toBe('');
      expect(result.status).toBe(0);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 150_000);
});
