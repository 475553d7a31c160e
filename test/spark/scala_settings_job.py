"""Run by test_8_scala_settings_and_drift.py in its own process: the Scala listener registered by Spark config
with badly written settings (flushIntervalSeconds "2s", flushRows 0, maxRows "lots"), driven through Py4J:

  bad_settings   a customer's query still starts and runs; the listener reads 2s as 2 s, clamps flushRows 0 to
                 1, uses the default maxRows, and its rows reach the table while the query runs
  clamps         the (table, intervalMs, flushRows, maxRows) constructor clamps instead of throwing
  drift          a column added to the progress table (ALTER TABLE ADD COLUMNS note STRING): rows still arrive

Prints one JSON line: each step's observations, or {"error": ...} for a step that could not finish."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import sparkhelpers as h  # noqa: E402
import workloads as w  # noqa: E402

workdir = h.fresh_dir(sys.argv[1])
spark = h.classic_session(
    workdir / "warehouse",
    extra=h.scala_listener_conf(
        **{
            "spark.streamdoctor.flushIntervalSeconds": "2s",
            "spark.streamdoctor.flushRows": "0",
            "spark.streamdoctor.maxRows": "lots",
            "spark.sql.pyspark.jvmStacktrace.enabled": "false",
        }
    ),
    app="streamdoctor-scala-settings",
)
jvm = spark._jvm
jspark = spark._jsparkSession


def table_batches(query_id):
    rows = spark.sql(f"SELECT batch_id FROM {h.TABLE} WHERE query_id = '{query_id}'").collect()
    return sorted(row.batch_id for row in rows)


def step_bad_settings(folder):
    query = w.rate(spark, "scala_bad_settings", folder / "cp", trigger="500 milliseconds")
    try:
        # Generous: a JVM's first write is slow on a loaded machine; the failure says what the listener saw.
        listeners = h.registered_scala_listeners(spark)
        seen_by = lambda: [(l.written(), l.failedWrites(), l.buffered(), str(l.lastError())) for l in listeners]  # noqa: E731
        try:
            batches = h.wait_until(lambda: table_batches(query.id), 150, "rows in the table while the query runs")
        except AssertionError as error:
            raise AssertionError(f"{error}; listeners (written, failed, buffered, lastError): {seen_by()}") from None
        seen = {"active_when_written": query.isActive and query.exception() is None, "batches_while_running": batches}
    finally:
        query.stop()
    listeners = h.registered_scala_listeners(spark)
    seen["registered"] = len(listeners)
    if listeners:
        (listener,) = listeners
        seen.update(
            disabled=listener.disabled(),
            flush_interval_ms=listener.flushIntervalMs(),
            flush_rows=listener.flushRows(),
            max_rows=listener.maxRows(),
            failed_writes=listener.failedWrites(),
        )
        listener.flush(30000)
    return seen


def step_clamps(folder):
    listener = getattr(jvm, h.SCALA_LISTENER)(h.TABLE, -5, 0, -1)
    return {"flush_interval_ms": listener.flushIntervalMs(), "flush_rows": listener.flushRows(), "max_rows": listener.maxRows(), "disabled": listener.disabled()}


def step_drift(folder):
    (listener,) = h.registered_scala_listeners(spark)
    failed_before = listener.failedWrites()
    spark.sql(f"ALTER TABLE {h.TABLE} ADD COLUMNS (note STRING)")
    query = w.rate(spark, "scala_drift", folder / "cp", trigger="500 milliseconds")
    try:
        h.wait_until(lambda: len(query.recentProgress) >= 3, 60, "3 batches")
    finally:
        query.stop()
    listener.flush(30000)
    rows = spark.sql(f"SELECT batch_id, note FROM {h.TABLE} WHERE query_id = '{query.id}'").collect()
    return {
        "rows": len(rows),
        "notes": sorted({row.note for row in rows}, key=str),
        "buffered": listener.buffered(),
        "failed_writes": listener.failedWrites() - failed_before,
        "last_error": listener.lastError().get() if listener.lastError().isDefined() else None,
    }


try:
    h.create_progress_table(spark)
    h.run_steps(spark, workdir, [("bad_settings", step_bad_settings), ("clamps", step_clamps), ("drift", step_drift)])
finally:
    spark.stop()
