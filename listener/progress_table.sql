-- StreamDoctor progress table: one row per StreamingQueryProgress event, appended by the listener
-- (listener/python or listener/scala). The raw progress JSON is kept as a
-- STRING so new Spark keys (commitBatch, controlBatch.REPARTITION, …) never break ingestion; the
-- extracted columns are what StreamDoctor filters and orders on. Replace main.streamdoctor with
-- your catalog and schema (and in the watch file's progress_table). The timestamps are TIMESTAMP_LTZ
-- explicitly: plain TIMESTAMP becomes TIMESTAMP_NTZ in a session with spark.sql.timestampType=TIMESTAMP_NTZ,
-- and StreamDoctor's unix_millis/unix_micros below refuse TIMESTAMP_NTZ.

CREATE SCHEMA IF NOT EXISTS main.streamdoctor;

CREATE TABLE IF NOT EXISTS main.streamdoctor.streaming_progress (
  query_id      STRING    NOT NULL COMMENT 'StreamingQueryProgress.id: stable across restarts (checkpoint identity)',
  run_id        STRING    NOT NULL COMMENT 'StreamingQueryProgress.runId: new on every start/restart',
  query_name    STRING             COMMENT 'queryName(...), NULL when unset',
  batch_id      BIGINT             COMMENT 'batchId; repeats on idle (no-data) progress events',
  event_time    TIMESTAMP_LTZ      COMMENT 'StreamingQueryProgress.timestamp: trigger start',
  ingested_at   TIMESTAMP_LTZ NOT NULL COMMENT 'when the listener wrote the row (current_timestamp() of the append)',
  progress_json STRING    NOT NULL COMMENT 'the progress exactly as Spark printed it (event.progress.json)'
)
USING DELTA
CLUSTER BY (ingested_at)
COMMENT 'Structured Streaming progress for StreamDoctor';

-- Keep two weeks (StreamDoctor reads minutes back; its digests read 24 hours). Schedule these daily.
-- DELETE only marks files removed: VACUUM deletes them (after its 7-day retention) unless predictive
-- optimization does it for you. Each listener flush adds a small file (about 8,640 a day per writing
-- cluster at the 10 s interval): OPTIMIZE compacts them.
-- DELETE FROM main.streamdoctor.streaming_progress WHERE ingested_at < current_timestamp() - INTERVAL 14 DAYS;
-- OPTIMIZE main.streamdoctor.streaming_progress;
-- VACUUM main.streamdoctor.streaming_progress;

-- What StreamDoctor runs (one statement per poll for every watched query; all values are named
-- parameters, the table too through IDENTIFIER):
--   SELECT query_id, run_id, batch_id, unix_millis(event_time) AS event_ms,
--          unix_micros(ingested_at) AS ingested_us, progress_json
--   FROM IDENTIFIER(:table)
--   WHERE (array_contains(from_json(:query_ids, 'ARRAY<STRING>'), query_id)
--       OR array_contains(from_json(:query_names, 'ARRAY<STRING>'), query_name))
--     AND (ingested_at > timestamp_micros(:after_us) OR (ingested_at = timestamp_micros(:after_us) AND
--          concat_ws('/', query_id, run_id, CAST(batch_id AS STRING), CAST(unix_millis(event_time) AS STRING)) > :after_key))
--   ORDER BY ingested_at, concat_ws('/', query_id, run_id, CAST(batch_id AS STRING), CAST(unix_millis(event_time) AS STRING))
