/**
 * Listener runs still working after their ack. Slack got its 200 already, so when the process is
 * told to stop (SIGTERM on a deploy) these must finish before Redis and the process go away:
 * otherwise a `/stream digest` or a mute in progress is cut off and the person hears nothing.
 */
export class InFlightListeners {
  private readonly running = new Set<Promise<unknown>>();

  /** Tracks `work` until it settles; returns it unchanged. */
  track<T>(work: Promise<T>): Promise<T> {
    const settled = work.then(
      () => undefined,
      () => undefined,
    );
    this.running.add(settled);
    void settled.then(() => this.running.delete(settled));
    return work;
  }

  get size(): number {
    return this.running.size;
  }

  /** Waits for every tracked run, at most `timeoutMs`; resolves to how many were still running then. */
  async drain(timeoutMs: number): Promise<number> {
    if (this.running.size === 0) return 0;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    // Runs that start while draining are awaited too (bounded by the same deadline).
    const all = (async () => {
      for (let round = 0; round < 100 && this.running.size > 0; round += 1) await Promise.all([...this.running]);
    })();
    await Promise.race([all, deadline]);
    clearTimeout(timer);
    return this.running.size;
  }
}
