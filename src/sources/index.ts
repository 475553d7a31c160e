export * from './source.js';
export { ProgressTableSource, type ProgressTableSourceOptions, type WatchedQueries } from './progress-table-source.js';
export { readProgressTableCursor, type ProgressTableCursor } from './progress-table-cursor.js';
export { PROGRESS_TABLE_STATEMENT, PROGRESS_TABLE_COLUMNS, progressPageParameters, progressPageRequest, rowKey } from './progress-table-sql.js';
export { SeenBatches, type SeenState } from './seen-batches.js';
export { PipelineEventsSource, type PipelineEventsCursor, type PipelineEventsSourceOptions } from './pipeline-events-source.js';
export { readPipelineEventsCursor, type PipelineCursorEntry } from './pipeline-events-cursor.js';
export { JobRunsSource, type JobRunsCursor, type JobRunsSourceOptions, type WatchedJob } from './job-runs-source.js';
