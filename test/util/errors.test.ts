/** One base for StreamDoctor's errors: a stable code per meaning, and the fix where there is one. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DurationError, parseDuration } from '../../src/util/duration.js';
import { ConfigError, StreamDoctorError, errorCodeOf } from '../../src/util/errors.js';
import { WatchConfigError } from '../../src/config/watch-config.js';
import { dailyCron } from '../../jobs/schedules.js';

const ROOT = resolve(new URL('../..', import.meta.url).pathname);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

describe('StreamDoctorError', () => {
  it('carries a code and the fix, and names itself after its class', () => {
    const err = new DurationError('soon');
    expect(err).toBeInstanceOf(StreamDoctorError);
    expect(err).toMatchObject({ name: 'DurationError', code: 'streamdoctor_invalid_duration', fix: 'write it like 500ms, 90s, 10m, 2h or 7d' });
    expect(() => parseDuration('soon')).toThrow(DurationError);
    expect(errorCodeOf(err)).toBe('streamdoctor_invalid_duration');
    expect(errorCodeOf(new Error('plain'))).toBeUndefined();
  });

  it('has one code for invalid configuration, wherever it is found', () => {
    expect(new WatchConfigError('w.yml', [{ line: 1, column: 1, path: 'streams', message: 'required' }]).code).toBe(ConfigError.CODE);
    let thrown: unknown;
    try {
      dailyCron('25:00');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect(errorCodeOf(thrown)).toBe('streamdoctor_config_invalid');
  });

  it('is the base of every error class of the bot (the stand-ins speak their own services\' errors)', () => {
    // The base itself, and internal control flow that never leaves its module: a probe deadline, a
    // grouped-alert signal, the end of an unshown incident's move.
    const internal = new Set(['StreamDoctorError', 'DeadlineError', 'JoinedGroupSignal', 'MovedSignal']);
    const offenders: string[] = [];
    for (const dir of ['src', 'jobs', 'handlers']) {
      for (const file of sourceFiles(join(ROOT, dir))) {
        if (file.includes('/src/standins/')) continue;
        for (const match of readFileSync(file, 'utf8').matchAll(/class (\w+) extends Error\b/g)) {
          if (!internal.has(match[1]!)) offenders.push(`${file.slice(ROOT.length + 1)}: ${match[1]}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });
});
