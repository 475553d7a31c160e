/**
 * The default tracker factory: the diagnosis engine's QueryTracker, with per-query engine options
 * (trigger, cores, retention) from the watch config when known.
 */
import type { EngineOptions } from '../src/diagnosis/engine-options.js';
import { QueryTracker, type TrackerState } from '../src/diagnosis/query-tracker.js';
import type { TrackerFactory } from './tracker-factory.js';

export function engineTrackers(optionsFor: (queryId: string) => EngineOptions | undefined = () => undefined): TrackerFactory {
  return {
    create: (queryId, name) => QueryTracker.create(queryId, name, optionsFor(queryId)),
    restore: (state) => {
      const id = (state as { id?: unknown })?.id;
      return QueryTracker.restore(state as TrackerState, typeof id === 'string' ? optionsFor(id) : undefined);
    },
  };
}
