"""Run by test_6_scala_timer_and_table.py in its own process (spark.jars must be on the driver's class path
from JVM start): the Scala listener registered by Spark config with a 2 s flush interval, driven through
Py4J in four steps that each record what they saw:

  table_check    StreamDoctorListener.checkTable and install on a missing table, an unknown catalog, other
                 columns, the right columns in another order, and the table of progress_table.sql
  long_trigger   a trigger minutes long: when the first batch's row reaches the table, the flush thread's life
  flush_rows     a second listener (1 h interval, flushRows 3) on its own table: the write at the third row
  remove         a listener of its own removed with remove() while a query runs: written, unregistered, its thread gone
  missing_table  the table dropped under the configured listener: rows kept, retried on the timer with no
                 query running, never a new table; the table made again: the kept rows written once

Prints one JSON line: each step's observations, or {"error": ...} for a step that could not finish."""

import json
import sys
import time
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import checks  # noqa: E402
import sparkhelpers as h  # noqa: E402
import workloads as w  # noqa: E402

LISTENER = h.SCALA_LISTENER
THREAD = "streamdoctor-listener-flush"
FLUSH_INTERVAL_S = 2
ROWS_TABLE = "spark_catalog.streamdoctor.flush_rows_progress"
REMOVE_TABLE = "spark_catalog.streamdoctor.remove_progress"

workdir = h.fresh_dir(sys.argv[1])
spark = h.classic_session(
    workdir / "warehouse",
    # str() of a JVM exception raised through Py4J is then the JVM's message alone.
    extra=h.scala_listener_conf(FLUSH_INTERVAL_S, **{"spark.sql.pyspark.jvmStacktrace.enabled": "false"}),
    app="streamdoctor-scala-timer",
)
jvm = spark._jvm
jspark = spark._jsparkSession


def registered():
    return h.registered_scala_listeners(spark)


def flush_threads():
    """(alive, daemon) of every JVM thread named streamdoctor-listener-flush."""
    threads = jvm.java.lang.Thread.getAllStackTraces().keySet().toArray()
    return [[t.isAlive(), t.isDaemon()] for t in threads if t.getName() == THREAD]


def executed(query):
    return [p for p in (json.loads(p.json) for p in query.recentProgress) if checks.executed(p)]


def reported_at(progress):
    """When the trigger ended (epoch seconds): its start plus its duration, as Spark measured them."""
    start = datetime.fromisoformat(progress["timestamp"].replace("Z", "+00:00")).timestamp()
    return start + progress["durationMs"]["triggerExecution"] / 1000


def table_rows(table, query_id):
    """(batch_id, ingested_at in epoch seconds) of the query's rows in `table`."""
    rows = spark.sql(f"SELECT batch_id, unix_micros(ingested_at) AS us FROM {table} WHERE query_id = '{query_id}'").collect()
    return sorted((row.batch_id, row.us / 1e6) for row in rows)


def refusal(call):
    """The exception `call` raises, as [class name, message]; None when it returns."""
    try:
        call()
    except Exception as error:  # noqa: BLE001 - PySpark converts the JVM's IllegalArgumentException
        return [type(error).__name__, str(error)]
    return None


def step_table_check(folder):
    """install() returns the listener it registered: removed at once, so a wrong acceptance cannot leak into later steps."""
    cls = getattr(jvm, LISTENER)
    before = len(jspark.streams().listListeners())
    typo = "spark_catalog.streamdoctor.streaming_progres"
    wrong = "spark_catalog.streamdoctor.wrong_columns"
    spark.sql(f"CREATE TABLE {wrong} (query_id STRING, progress STRING) USING PARQUET")
    # progress_table.sql's columns with run_id first: insertInto (by position) would swap the two ids.
    reordered = "spark_catalog.streamdoctor.reordered_progress"
    spark.sql(
        f"CREATE TABLE {reordered} (run_id STRING, query_id STRING, query_name STRING, batch_id BIGINT, "
        "event_time TIMESTAMP, ingested_at TIMESTAMP, progress_json STRING) USING PARQUET"
    )
    seen = {
        "missing": refusal(lambda: cls.checkTable(jspark, typo)),
        "install_missing": refusal(lambda: jspark.streams().removeListener(cls.install(jspark, typo, 2.0))),
        "no_catalog": refusal(lambda: cls.checkTable(jspark, "no_such_catalog.streamdoctor.streaming_progress")),
        "wrong_columns": refusal(lambda: cls.checkTable(jspark, wrong)),
        "install_wrong_columns": refusal(lambda: jspark.streams().removeListener(cls.install(jspark, wrong, 2.0))),
        "reordered": refusal(lambda: cls.checkTable(jspark, reordered)),
        "reordered_columns": spark.table(reordered).columns,
        "listeners_added_by_refusals": len(jspark.streams().listListeners()) - before,
        "typo_created": spark.catalog.tableExists(typo),
        "good": refusal(lambda: cls.checkTable(jspark, h.TABLE)),
    }
    installed = cls.install(jspark, h.TABLE, 2.0)
    seen["install_good_registers"] = len(jspark.streams().listListeners()) - before
    jspark.streams().removeListener(installed)
    return seen


def step_long_trigger(folder):
    """Only the timer can write here: no trigger (and so no progress or idle event) for minutes."""
    (listener,) = registered()
    seen = {"threads_before_any_query": flush_threads()}
    query = w.rate(spark, "scala_long_trigger", folder / "cp", trigger=h.long_trigger())
    try:
        first = h.wait_until(lambda: executed(query), 60, "the first batch")[0]
        rows = h.wait_until(lambda: table_rows(h.TABLE, query.id), 30, "the first batch's row")
        seen.update(
            visible_after_s=time.time() - reported_at(first),
            ingested_after_s=rows[0][1] - reported_at(first),
            batches=[batch for batch, _ in rows],
            first_batch=first["batchId"],
            active_when_visible=query.isActive,
            executed_when_visible=len(executed(query)),
            buffered_while_running=listener.buffered(),
            threads_while_running=flush_threads(),
        )
    finally:
        query.stop()
    seen["threads_after_stop"] = h.settle(flush_threads, lambda threads: not threads, 15)
    seen["failed_writes"] = listener.failedWrites()
    return seen


def step_flush_rows(folder):
    """A listener whose interval never comes (1 h): only flushRows (3) or the query's end writes."""
    h.create_progress_table(spark, ROWS_TABLE)
    listener = getattr(jvm, LISTENER)(ROWS_TABLE, 3600 * 1000, 3, 10000)
    jspark.streams().addListener(listener)
    try:
        query = w.rate(spark, "scala_flush_rows", folder / "cp", trigger="500 milliseconds")
        try:
            h.wait_until(lambda: len(executed(query)) >= 3 and table_rows(ROWS_TABLE, query.id), 60, "3 batches and the first write")
            rows = table_rows(ROWS_TABLE, query.id)
            active = query.isActive
        finally:
            query.stop()
        seen = {"active_when_written": active, "flush_at_end": listener.flush(30000)}
        first_write = min(at for _, at in rows)
        batches = executed(query)
        seen.update(
            first_write_batches=[batch for batch, at in rows if at == first_write],
            first_batches=[p["batchId"] for p in batches[:3]],
            first_write_after_third_report_s=first_write - reported_at(batches[2]),
            table_batches=[batch for batch, _ in table_rows(ROWS_TABLE, query.id)],
            executed_batches=[p["batchId"] for p in batches],
            buffered_at_end=listener.buffered(),
            failed_writes=listener.failedWrites(),
        )
        seen["threads_after_stop"] = h.settle(flush_threads, lambda threads: not threads, 15)
        return seen
    finally:
        jspark.streams().removeListener(listener)


def step_remove(folder):
    """remove() while a query runs, on a listener of its own next to the one Spark config registered (two flush
    threads while the query runs): what it buffered is written, it is unregistered, its thread ends while the query
    goes on, and it buffers no later report."""
    h.create_progress_table(spark, REMOVE_TABLE)
    listener = getattr(jvm, LISTENER)(REMOVE_TABLE, 3600 * 1000, 10000, 10000)
    listener.useSession(jspark)
    jspark.streams().addListener(listener)
    query = w.rate(spark, "scala_remove", folder / "cp", trigger="500 milliseconds")
    try:
        h.wait_until(lambda: listener.buffered() >= 2, 60, "two buffered reports")
        seen = {"threads_before": flush_threads(), "buffered_before": listener.buffered()}
        seen["removed_wrote"] = listener.remove(30000)
        seen["buffered_after"] = listener.buffered()
        listeners = jspark.streams().listListeners()
        seen["still_registered"] = any(listeners[i].equals(listener) for i in range(len(listeners)))
        seen["threads_after"] = h.settle(flush_threads, lambda threads: len(threads) < 2, 15)
        count = len(executed(query))
        h.wait_until(lambda: len(executed(query)) >= count + 2, 30, "two more batches")
        seen["buffered_later"] = listener.buffered()
        seen["table_rows"] = len(table_rows(REMOVE_TABLE, query.id))
        seen["failed_writes"] = listener.failedWrites()
        return seen
    finally:
        query.stop()
        # The config-registered listener writes this query's rows too: done before the next step drops its table.
        for other in registered():
            other.flush(30000)


def step_missing_table(folder):
    """The table dropped under the listener registered by config (which cannot check it at start)."""
    (listener,) = registered()
    failed_before, written_before = listener.failedWrites(), listener.written()
    spark.sql(f"DROP TABLE {h.TABLE}")
    query = w.rate(spark, "scala_missing_table", folder / "cp", trigger="500 milliseconds")
    try:
        h.wait_until(
            lambda: len(executed(query)) >= 4 and (listener.failedWrites() > failed_before or listener.written() > written_before),
            60,
            "4 batches and a write",
        )
        seen = {"running_after_write": query.isActive and query.exception() is None}
    finally:
        query.stop()
    seen["flush_at_end"] = listener.flush(30000)  # returns once the terminated event is in; its write fails
    failed_at_end = listener.failedWrites()
    batches = [p["batchId"] for p in executed(query)]
    seen.update(
        buffered_at_end=listener.buffered(),
        executed_batches=batches,
        failed_writes_after_end=h.settle(listener.failedWrites, lambda failed: failed > failed_at_end, 15) - failed_at_end,
        threads_while_buffered=flush_threads(),
        table_created=spark.catalog.tableExists(h.TABLE),
        written_while_missing=listener.written() - written_before,
        last_error=listener.lastError().get() if listener.lastError().isDefined() else None,
    )
    h.create_progress_table(spark)
    seen["buffered_after_create"] = h.settle(listener.buffered, lambda buffered: buffered == 0, 20)
    seen["table_batches"] = [batch for batch, _ in table_rows(h.TABLE, query.id)]
    seen["threads_after_write"] = h.settle(flush_threads, lambda threads: not threads, 15)
    return seen


try:
    h.create_progress_table(spark)
    h.run_steps(
        spark,
        workdir,
        [
            ("table_check", step_table_check),
            ("long_trigger", step_long_trigger),
            ("flush_rows", step_flush_rows),
            ("remove", step_remove),
            ("missing_table", step_missing_table),
        ],
    )
finally:
    spark.stop()
