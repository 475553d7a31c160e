/**
 * Pipeline settings of the Procfile processes, as a pure function of the environment (on top of
 * src/config/env.ts, which owns the shared variables). Every problem says what to set instead.
 *
 * - `STREAMDOCTOR_POLL_SECONDS`: poll cadence per source. @defaultValue 10
 * - `STREAMDOCTOR_DIGEST_AT`: daily digest time `HH:MM`. @defaultValue '09:00'
 * - `STREAMDOCTOR_TIME_ZONE`: IANA zone of the digest. @defaultValue 'UTC'
 * - `STREAMDOCTOR_DEFAULT_CHANNEL`: channel for streams no rule routes. @defaultValue none
 * - `STREAMDOCTOR_WORKER_QUEUES`: comma list of queues this worker serves. @defaultValue all
 * - `STREAMDOCTOR_SOURCE_FAILING_SECONDS`: a source whose reads have failed this long gets one "StreamDoctor cannot read …" incident in the default channel, resolved by the next successful read. @defaultValue 300
 * - `STREAMDOCTOR_STORM_WINDOW_SECONDS` / `STREAMDOCTOR_STORM_THRESHOLD`: alert-storm grouping: openings per channel within the window that form one grouped message (the first one is posted at once and the group takes its message over; a whole number ≥ 2, anything else is reported as a problem). @defaultValue 30 / 2
 */
const QUEUES = ['poll', 'detect', 'notify', 'digest'] as const;

export interface PipelineSettings {
  pollEveryMs: number;
  digestAt: string;
  timeZone: string;
  defaultChannel: string | null;
  workerQueues: (typeof QUEUES)[number][] | null;
  stormWindowMs: number;
  stormThreshold: number;
  sourceFailingAfterMs: number;
  problems: string[];
}

function text(env: NodeJS.ProcessEnv, name: string): string | null {
  const v = env[name]?.trim();
  return v ? v : null;
}

function positive(env: NodeJS.ProcessEnv, name: string, fallback: number, problems: string[]): number {
  const raw = text(env, name);
  if (raw === null) return fallback;
  const n = Number(raw);
  if (Number.isFinite(n) && n > 0) return n;
  problems.push(`${name} must be a positive number; got "${raw.slice(0, 40)}"`);
  return fallback;
}

/** Openings per channel that form one grouped message: a whole number ≥ 2 (1 would group every alert). */
function stormThreshold(env: NodeJS.ProcessEnv, problems: string[]): number {
  const raw = text(env, 'STREAMDOCTOR_STORM_THRESHOLD');
  const name = 'STREAMDOCTOR_STORM_THRESHOLD';
  if (raw === null) return 2;
  const n = Number(raw);
  if (Number.isInteger(n) && n >= 2) return n;
  problems.push(
    `${name} must be a whole number of at least 2 (how many openings in one channel within the storm window form one grouped message), e.g. ${name}=2; got "${raw.slice(0, 40)}"`,
  );
  return 2;
}

export function readPipelineSettings(env: NodeJS.ProcessEnv): PipelineSettings {
  const problems: string[] = [];
  const pollSeconds = positive(env, 'STREAMDOCTOR_POLL_SECONDS', 10, problems);
  const digestAt = text(env, 'STREAMDOCTOR_DIGEST_AT') ?? '09:00';
  if (!/^([01]?\d|2[0-3]):[0-5]\d$/.test(digestAt)) problems.push(`STREAMDOCTOR_DIGEST_AT must be HH:MM (24-hour), e.g. 09:00; got "${digestAt}"`);
  const timeZone = text(env, 'STREAMDOCTOR_TIME_ZONE') ?? 'UTC';
  try {
    new Intl.DateTimeFormat('en', { timeZone });
  } catch {
    problems.push(`STREAMDOCTOR_TIME_ZONE must be an IANA zone such as Europe/Lisbon; got "${timeZone}"`);
  }
  const queuesText = text(env, 'STREAMDOCTOR_WORKER_QUEUES');
  let workerQueues: PipelineSettings['workerQueues'] = null;
  if (queuesText) {
    const names = queuesText.split(',').map((q) => q.trim()).filter(Boolean);
    const unknown = names.filter((n) => !(QUEUES as readonly string[]).includes(n));
    if (unknown.length > 0) problems.push(`STREAMDOCTOR_WORKER_QUEUES: unknown queue(s) ${unknown.join(', ')}; use any of ${QUEUES.join(', ')}`);
    workerQueues = names.filter((n): n is (typeof QUEUES)[number] => (QUEUES as readonly string[]).includes(n));
  }
  return {
    pollEveryMs: Math.round(pollSeconds * 1000),
    digestAt,
    timeZone,
    defaultChannel: text(env, 'STREAMDOCTOR_DEFAULT_CHANNEL'),
    workerQueues,
    stormWindowMs: Math.round(positive(env, 'STREAMDOCTOR_STORM_WINDOW_SECONDS', 30, problems) * 1000),
    stormThreshold: stormThreshold(env, problems),
    sourceFailingAfterMs: Math.round(positive(env, 'STREAMDOCTOR_SOURCE_FAILING_SECONDS', 300, problems) * 1000),
    problems,
  };
}
