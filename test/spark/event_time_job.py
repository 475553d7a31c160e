"""Run by test_7_job_group_and_event_time.py in its own process: the table made from progress_table.sql (event_time
TIMESTAMP), then the user's session switched to spark.sql.timestampType=TIMESTAMP_NTZ and a session time zone
west of UTC, a short query run with the listener, its rows written and read back.

  py     the Python listener (install(), flush_interval_s 2)
  scala  the Scala listener registered by Spark config (flushIntervalSeconds 2), flushed through Py4J

Prints one JSON line: what to_timestamp gives in that session, the query's executed batches (id and progress
timestamp) and the rows (batch_id, unix_millis(event_time)). Runs on PySpark 3.5 and 4.0."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import sparkhelpers as h  # noqa: E402
import workloads as w  # noqa: E402


def executed(query):
    progress = [json.loads(p.json) if hasattr(p, "json") else p for p in query.recentProgress]  # 3.5: dicts
    return [p for p in progress if "addBatch" in p.get("durationMs", {})]


mode, workdir = sys.argv[1], h.fresh_dir(sys.argv[2])
extra = {}
if mode == "scala":
    extra = h.scala_listener_conf(2)
spark = h.classic_session(workdir / "warehouse", extra=extra, app=f"streamdoctor-event-time-{mode}")
try:
    h.create_progress_table(spark)  # event_time TIMESTAMP (with local time zone): made before the switch
    spark.conf.set("spark.sql.session.timeZone", "America/Los_Angeles")
    spark.conf.set("spark.sql.timestampType", "TIMESTAMP_NTZ")
    if mode == "py":
        from streamdoctor_listener import install

        listener = install(spark, table=h.TABLE, flush_interval_s=2)
    query = w.rate(spark, f"event_time_{mode}", workdir / "cp", trigger="500 milliseconds")
    try:
        h.wait_until(lambda: len(executed(query)) >= 3, 120, "3 batches")
    finally:
        query.stop()
    if mode == "py":
        listener.flush()
        failed = listener.failed_writes
    else:
        (ours,) = h.registered_scala_listeners(spark)
        ours.flush(30000)
        failed = ours.failedWrites()
    rows = spark.sql(f"SELECT batch_id, unix_millis(event_time) AS event_ms FROM {h.TABLE} WHERE query_id = '{query.id}'").collect()
    print(
        json.dumps(
            {
                "to_timestamp_type": spark.sql("SELECT to_timestamp('2026-09-14T10:00:00.000Z') AS t").schema["t"].dataType.simpleString(),
                "table_type": dict(spark.table(h.TABLE).dtypes)["event_time"],
                "executed": [[p["batchId"], p["timestamp"]] for p in executed(query)],
                "rows": sorted([r.batch_id, r.event_ms] for r in rows),
                "failed_writes": failed,
            }
        ),
        flush=True,
    )
finally:
    spark.stop()
