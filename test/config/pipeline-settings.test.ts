/** Pipeline settings are part of the one environment schema; every problem says what to write. */
import { describe, expect, it } from 'vitest';
import { readEnvConfig } from '../../src/config/index.js';

/** The pipeline's settings with the environment's problems, as the old reader returned them. */
function readPipelineSettings(env: NodeJS.ProcessEnv) {
  const config = readEnvConfig(env);
  return { ...config.pipeline, problems: config.problems };
}

describe('pipeline settings', () => {
  it('has documented defaults', () => {
    expect(readPipelineSettings({})).toEqual({
      pollEveryMs: 60_000,
      digestAt: '09:00',
      timeZone: 'UTC',
      defaultChannel: null,
      workerQueues: null,
      stormWindowMs: 30_000,
      stormThreshold: 2,
      sourceFailingAfterMs: 300_000,
      problems: [],
    });
  });

  it('reads every variable', () => {
    const settings = readPipelineSettings({
      STREAMDOCTOR_POLL_SECONDS: '2.5',
      STREAMDOCTOR_DIGEST_AT: '7:45',
      STREAMDOCTOR_TIME_ZONE: 'Europe/Lisbon',
      STREAMDOCTOR_DEFAULT_CHANNEL: 'C0DATAALRT',
      STREAMDOCTOR_WORKER_QUEUES: 'detect, notify',
      STREAMDOCTOR_STORM_WINDOW_SECONDS: '60',
      STREAMDOCTOR_STORM_THRESHOLD: '5',
      STREAMDOCTOR_SOURCE_FAILING_SECONDS: '90',
    });
    expect(settings).toMatchObject({ pollEveryMs: 2500, digestAt: '7:45', timeZone: 'Europe/Lisbon', defaultChannel: 'C0DATAALRT', workerQueues: ['detect', 'notify'], stormWindowMs: 60_000, stormThreshold: 5, sourceFailingAfterMs: 90_000, problems: [] });
  });

  it('lists each mistake with the fix, and keeps going with defaults', () => {
    const settings = readPipelineSettings({
      STREAMDOCTOR_POLL_SECONDS: 'ten',
      STREAMDOCTOR_DIGEST_AT: '9am',
      STREAMDOCTOR_TIME_ZONE: 'Mars/Olympus',
      STREAMDOCTOR_WORKER_QUEUES: 'detect,notfy',
      STREAMDOCTOR_SOURCE_FAILING_SECONDS: '0',
    });
    expect(settings.sourceFailingAfterMs).toBe(300_000);
    expect(settings.pollEveryMs).toBe(60_000);
    expect(settings.workerQueues).toEqual(['detect']);
    expect(settings.problems).toEqual([
      'STREAMDOCTOR_POLL_SECONDS must be a number of seconds from 0.001 to 604800 (7 days), written like 30 or 0.5; got "ten"',
      'STREAMDOCTOR_DIGEST_AT must be HH:MM (24-hour), e.g. 09:00; got "9am"',
      'STREAMDOCTOR_TIME_ZONE must be an IANA zone such as Europe/Lisbon; got "Mars/Olympus"',
      'STREAMDOCTOR_WORKER_QUEUES: unknown queue(s) notfy; use any of poll, detect, notify, digest',
      'STREAMDOCTOR_SOURCE_FAILING_SECONDS must be a number of seconds from 0.001 to 604800 (7 days), written like 30 or 0.5; got "0"',
    ]);
  });

  it('refuses a storm threshold below 2 (or not a whole number) and names the variable and what to write', () => {
    for (const value of ['1', '0', '-3', '2.5', 'many', '0x2', '2e0', '1e400']) {
      const settings = readPipelineSettings({ STREAMDOCTOR_STORM_THRESHOLD: value });
      expect(settings.stormThreshold).toBe(2);
      expect(settings.problems).toEqual([
        `STREAMDOCTOR_STORM_THRESHOLD must be a whole number of at least 2 (how many openings in one channel within the storm window form one grouped message), e.g. STREAMDOCTOR_STORM_THRESHOLD=2; got "${value}"`,
      ]);
    }
    expect(readPipelineSettings({ STREAMDOCTOR_STORM_THRESHOLD: ' 3 ' })).toMatchObject({ stormThreshold: 3, problems: [] });
  });

  it('refuses seconds that are no plain decimal, round to 0 ms, are not finite or exceed a week, naming the variable', () => {
    // Each was once read: 0x10 as 16 s, 0.0001 as 0 ms and 1e308 as Infinity ms (a schedule BullMQ refuses).
    for (const name of ['STREAMDOCTOR_POLL_SECONDS', 'STREAMDOCTOR_STORM_WINDOW_SECONDS', 'STREAMDOCTOR_SOURCE_FAILING_SECONDS']) {
      for (const value of ['0.0001', '0.0004', '1e308', '1e3', '0x10', 'Infinity', '604801', '-1', '+5']) {
        const settings = readPipelineSettings({ [name]: value });
        expect(settings.problems, `${name}=${value}`).toEqual([`${name} must be a number of seconds from 0.001 to 604800 (7 days), written like 30 or 0.5; got "${value}"`]);
        expect(Number.isFinite(settings.pollEveryMs) && settings.pollEveryMs > 0).toBe(true);
      }
    }
    expect(readPipelineSettings({ STREAMDOCTOR_POLL_SECONDS: '0.5', STREAMDOCTOR_STORM_WINDOW_SECONDS: '.001', STREAMDOCTOR_SOURCE_FAILING_SECONDS: '604800' })).toMatchObject({
      pollEveryMs: 500,
      stormWindowMs: 1,
      sourceFailingAfterMs: 604_800_000,
      problems: [],
    });
  });
});
