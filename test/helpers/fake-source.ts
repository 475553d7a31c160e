/**
 * A progress source for tests, from a poll function that returns only what the test cares about:
 * the rest of `PollResult` (origins, warnings, `more`) gets neutral values.
 */
import type { Progress } from '../../src/progress/types.js';
import type { WatchedJobState, PollResult, ProgressSource, SourceName, SourceSignal } from '../../src/sources/source.js';

export interface FakePoll {
  progress?: { progress: Progress; origin?: PollResult<unknown>['progress'][number]['origin']; warnings?: string[] }[];
  cursor?: unknown;
  warnings?: string[];
  signals?: SourceSignal[];
  more?: boolean;
}

export function fakeSource(
  poll: (cursor: unknown) => Promise<FakePoll>,
  options: { name?: SourceName; liveness?: () => WatchedJobState[] | null } = {},
): ProgressSource {
  return {
    name: options.name ?? 'progress_table',
    liveness: options.liveness ?? (() => null),
    async poll(cursor) {
      const result = await poll(cursor);
      return {
        progress: (result.progress ?? []).map((item) => ({ origin: { source: 'progress_table', ref: 'test' }, warnings: [], ...item })),
        signals: result.signals ?? [],
        cursor: result.cursor ?? null,
        warnings: result.warnings ?? [],
        more: result.more ?? false,
      };
    },
  };
}
