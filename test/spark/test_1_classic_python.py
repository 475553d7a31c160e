"""The Python listener on classic local PySpark (Databricks dedicated compute), installed as listener/README.md says."""

import json
import time

import pytest

import checks
import sparkhelpers as h
import workloads as w


def test_listener_writes_the_table_the_bot_reads(classic, workdir):
    from streamdoctor_listener import install

    listener = install(classic, table=h.TABLE, flush_interval_s=2)
    try:
        runs = checks.run_workloads(classic, workdir / "classic-python", "classic_py")
        count = checks.check_all(classic, h.TABLE, runs)
    finally:
        classic.streams.removeListener(listener)
    assert listener.buffered == 0 and listener.written == count
    assert (listener.dropped, listener.failed_writes, listener.last_error) == (0, 0, None)


def test_a_failing_write_never_reaches_the_stream(classic, workdir, capfd):
    """The table dropped after install: every write fails (retried, counted), and the table is never re-created."""
    from streamdoctor_listener import install

    dropped = "spark_catalog.streamdoctor.dropped_progress"
    h.create_progress_table(classic, dropped)
    listener = install(classic, table=dropped, flush_interval_s=3, flush_rows=1, max_rows=3)
    classic.sql(f"DROP TABLE {dropped}")
    folder = h.fresh_dir(workdir / "classic-failing")
    query = w.rate(classic, "classic_failing_writes", folder / "cp", trigger="500 milliseconds")
    try:
        h.wait_until(lambda: len(query.recentProgress) >= 8, 120, "8 progress reports")
        h.wait_until(lambda: listener.buffered + listener.dropped >= 8, 60, "8 progress reports at the listener")
        assert query.isActive and query.exception() is None
    finally:
        query.stop()
        classic.streams.removeListener(listener)
    # Every write failed; rows were kept up to max_rows, the oldest dropped and counted; nothing was raised.
    assert listener.written == 0 and listener.failed_writes >= 1
    assert listener.buffered == 3 and listener.dropped >= 5
    assert listener.last_error and "dropped_progress" in listener.last_error
    assert not classic.catalog.tableExists(dropped), "the listener re-created the table"
    # Back-off: after a failure the next try waits flush_interval_s, not the next progress report.
    assert listener.failed_writes <= len(query.recentProgress) / 2
    assert "streamdoctor listener: could not append" in capfd.readouterr().err


def test_the_listener_pickles_and_runs_where_its_package_is_not_installed(classic, tmp_path):
    """Under Spark Connect the object is pickled and may run in another Python process: install() ships the
    class by value, so that process needs only pyspark. Unpickled here in a child where importing
    streamdoctor_listener fails, it still buffers a real progress event and reaches Spark only via self.spark."""
    import subprocess
    import sys

    import streamdoctor_listener
    from pyspark import cloudpickle

    listener = streamdoctor_listener.StreamDoctorListener(table=h.TABLE, flush_rows=100)
    listener.spark = classic  # a session attached by PySpark must not travel
    cloudpickle.register_pickle_by_value(streamdoctor_listener)
    payload = tmp_path / "listener.pickle"
    payload.write_bytes(cloudpickle.dumps(listener))
    event = {"progress": json.loads((h.REPO / "test" / "spark" / "progress-sample.json").read_text())}
    child = f"""
import json, pickle, sys
sys.modules['streamdoctor_listener'] = None  # import streamdoctor_listener now raises
from pyspark.sql.streaming.listener import QueryProgressEvent
listener = pickle.loads(open({str(payload)!r}, 'rb').read())
assert listener.spark is None, 'the session travelled'
listener.onQueryProgress(QueryProgressEvent.fromJson(json.loads({json.dumps(json.dumps(event))})))
print(json.dumps({{'module': type(listener).__module__, 'buffered': listener.buffered, 'failed': listener.failed_writes}}))
"""
    result = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"module": "streamdoctor_listener", "buffered": 1, "failed": 0}


def test_the_timer_flushes_between_long_triggers(classic, workdir):
    """A long trigger: a batch's row is in the table flush_interval_s after its report, not at the next trigger."""
    from streamdoctor_listener import install

    listener = install(classic, table=h.TABLE, flush_interval_s=2)
    folder = h.fresh_dir(workdir / "timer")
    # The next batch minutes away (Spark runs it at the next multiple of the interval, not a whole
    # interval after the first): only the timer can have written the row.
    query = w.rate(classic, "classic_long_trigger", folder / "cp", trigger=h.long_trigger())
    try:
        h.wait_until(lambda: any(checks.executed(json.loads(p.json)) for p in query.recentProgress), 60, "the first batch")
        reported = time.time()
        batch = [json.loads(p.json) for p in query.recentProgress if checks.executed(json.loads(p.json))][0]["batchId"]
        h.wait_until(
            lambda: classic.sql(f"SELECT 1 FROM {h.TABLE} WHERE query_id = '{query.id}' AND batch_id = {batch}").count() == 1,
            15,
            "the first batch's row",
        )
        delay = time.time() - reported
        assert delay < 10, f"the row took {delay:.1f} s"
        assert len([p for p in query.recentProgress if checks.executed(json.loads(p.json))]) == 1, "the next trigger came first"
    finally:
        query.stop()
        listener.flush()
        classic.streams.removeListener(listener)
    assert listener.failed_writes == 0 and listener.buffered == 0


def test_install_refuses_a_missing_table_or_other_columns_and_never_creates_one(classic):
    from streamdoctor_listener import ProgressTableError, install

    typo = "spark_catalog.streamdoctor.streaming_progres"
    with pytest.raises(ProgressTableError) as missing:
        install(classic, table=typo)
    assert "does not exist" in str(missing.value) and "progress_table.sql" in str(missing.value)
    assert "\n" not in str(missing.value)
    with pytest.raises(ProgressTableError) as no_catalog:
        install(classic, table="no_such_catalog.streamdoctor.streaming_progress")
    assert "progress_table.sql" in str(no_catalog.value) and "\n" not in str(no_catalog.value)
    classic.sql("CREATE TABLE IF NOT EXISTS spark_catalog.streamdoctor.wrong_columns (query_id STRING, progress STRING) USING PARQUET")
    with pytest.raises(ProgressTableError) as wrong:
        install(classic, table="spark_catalog.streamdoctor.wrong_columns")
    assert "has columns (query_id, progress)" in str(wrong.value)
    assert not classic.catalog.tableExists(typo)


def test_remove_writes_what_is_buffered_and_ends_the_timer(classic, workdir):
    """remove() while a query runs: the buffered row is written, the timer thread ends, later reports are not
    buffered. Removed with spark.streams.removeListener alone, the timer outlived it (the query never terminated
    as far as the listener heard)."""
    from streamdoctor_listener import install

    listener = install(classic, table=h.TABLE, flush_interval_s=600)
    folder = h.fresh_dir(workdir / "remove")
    query = w.rate(classic, "classic_remove", folder / "cp", trigger="2 seconds")
    try:
        h.wait_until(lambda: listener.buffered > 0, 60, "a buffered report")
        # This listener's own timer (an earlier test's listener may still run one of the same name).
        timer = listener._timer
        assert timer is not None and timer.is_alive(), "the timer runs while the query does"
        buffered = listener.buffered
        written = listener.remove()
        assert written >= buffered and listener.buffered == 0
        h.wait_until(lambda: not timer.is_alive(), 10, "the timer thread to end")
        seen = len(query.recentProgress)
        h.wait_until(lambda: len(query.recentProgress) > seen + 1, 30, "two more batches")
        assert listener.buffered == 0, "a removed listener buffered a report"
        assert classic.sql(f"SELECT 1 FROM {h.TABLE} WHERE query_id = '{query.id}'").count() == listener.written
    finally:
        query.stop()
    assert listener.failed_writes == 0 and listener.last_error is None
