/** Starts fault-suite child processes (test/faults/helpers/fault-worker.ts) and waits for "ready". */
import { spawnReady, type Child } from '../../pipeline/helpers/children.js';
import type { FaultChildConfig } from './fault-worker.js';

export async function startFaultChild(config: FaultChildConfig, timeoutMs = 30_000): Promise<Child> {
  return spawnReady('test/faults/helpers/fault-worker.ts', { SD_FAULT_CHILD: JSON.stringify(config), LOG_LEVEL: 'error' }, timeoutMs);
}
