/**
 * CPU per pipeline stage, for the cost model `npm run bench:pipeline` prints. Off unless a process
 * turns it on (`stageCpu.enable()`, the bench's workers do): a no-op then, one boolean test per call.
 *
 * Only synchronous segments are measured (`sync`): between two awaits JavaScript runs alone, so
 * `process.cpuUsage()` before and after is exactly that segment's CPU, whatever else the process
 * does concurrently. What runs in callbacks no stage owns (BullMQ's job moves, ioredis reply
 * parsing, socket I/O, GC) is the process total minus the stages: the bench prints it as
 * "queue, Redis client, event loop". `around` brackets an await and charges everything that ran
 * meanwhile minus the stages measured meanwhile; only for a stage that never runs concurrently with
 * itself in one process (the poll of one source).
 */

function cpuMicros(): number {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}

export class StageCpu {
  private readonly totals = new Map<string, number>();
  /** Sum of every stage so far (µs), for `around`'s exclusive accounting. */
  private measured = 0;

  constructor(public enabled: boolean) {}

  enable(): void {
    this.enabled = true;
  }

  add(stage: string, micros: number): void {
    if (micros <= 0) return;
    this.totals.set(stage, (this.totals.get(stage) ?? 0) + micros);
    this.measured += micros;
  }

  /** Runs `fn` and charges its CPU to `stage`. */
  sync<T>(stage: string, fn: () => T): T {
    if (!this.enabled) return fn();
    const start = cpuMicros();
    try {
      return fn();
    } finally {
      this.add(stage, cpuMicros() - start);
    }
  }

  /** Awaits `fn`, charging the process's CPU meanwhile minus what other stages measured meanwhile. */
  async around<T>(stage: string, fn: () => Promise<T>): Promise<T> {
    if (!this.enabled) return fn();
    const start = cpuMicros();
    const measuredBefore = this.measured;
    try {
      return await fn();
    } finally {
      this.add(stage, cpuMicros() - start - (this.measured - measuredBefore));
    }
  }

  /** Process CPU so far and each stage's share, µs. */
  snapshot(): { processMicros: number; stages: Record<string, number> } {
    return { processMicros: cpuMicros(), stages: Object.fromEntries(this.totals) };
  }
}

/** The process-wide meter. */
export const stageCpu = new StageCpu(false);
