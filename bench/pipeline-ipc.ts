/** What bench/pipeline.ts and its child processes (stand-ins, workers) share: ids and a tiny IPC call. */
import type { ChildProcess } from 'node:child_process';

export interface StandinsConfig {
  queries: number;
  lagging: number;
  channels: number;
  benchStart: number;
}

export const benchQueryId = (i: number) => `b0000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
export const benchChannelId = (k: number) => `C0BENCH${String(k).padStart(3, '0')}`;

/** A worker's CPU report: process total and per stage (µs), progress events it observed. */
export interface WorkerCpu {
  processMicros: number;
  stages: Record<string, number>;
}

/** Calls a child's `{ id, op, arg }` → `{ id, result }` handler over IPC. */
export class IpcPeer {
  private next = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  readonly ready: Promise<unknown>;

  constructor(readonly proc: ChildProcess) {
    this.ready = new Promise((resolve, reject) => {
      this.pending.set(0, { resolve, reject });
      proc.once('exit', (code) => {
        for (const p of this.pending.values()) p.reject(new Error(`child exited (${code})`));
        this.pending.clear();
      });
    });
    proc.on('message', (raw: { id: number; result?: unknown; error?: string }) => {
      const p = this.pending.get(raw.id);
      if (!p) return;
      this.pending.delete(raw.id);
      if (raw.error) p.reject(new Error(raw.error));
      else p.resolve(raw.result);
    });
  }

  call<T>(op: string, arg?: Record<string, unknown>): Promise<T> {
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.proc.send({ id, op, arg });
    });
  }
}
