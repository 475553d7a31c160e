"""The Python listener on classic local PySpark (Databricks dedicated compute), installed as listener/README.md says."""

import json

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
    from streamdoctor_listener import install

    listener = install(classic, table="no_such_catalog.streamdoctor.streaming_progress", flush_interval_s=3, flush_rows=1, max_rows=3)
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
    assert listener.last_error and "no_such_catalog" in listener.last_error
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
