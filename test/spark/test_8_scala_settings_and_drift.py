"""The Scala listener registered by Spark config with badly written settings, and the progress table gaining a
column after install, on real local Spark (scala_settings_job.py in a fresh classic JVM, driven through Py4J).

Before: Spark builds the listener for every session's StreamingQueryManager, so flushIntervalSeconds=2s
(NumberFormatException) or flushRows=0 (require) made every writeStream.start() fail; and insertInto (by
position) failed every write forever once the table had one more column (INSERT_COLUMN_ARITY_MISMATCH)."""

import json

import pytest

import sparkhelpers as h


@pytest.fixture(scope="module")
def run(workdir):
    result = h.run_scala_job("scala_settings_job.py", workdir / "scala-settings")
    return json.loads(result.stdout.strip().splitlines()[-1]), result.stderr


def step(run, name):
    seen = run[0][name]
    assert "error" not in seen, seen["error"]
    return seen


def test_bad_settings_never_stop_a_query_from_starting_and_are_read_leniently(run):
    """The query starts and runs; 2s is 2 s, flushRows 0 is clamped to 1 (so rows are written as they come, while
    the query runs), maxRows "lots" falls back to 10000; one stderr line names each bad setting and what is used."""
    seen, stderr = step(run, "bad_settings"), run[1]
    assert seen["active_when_written"] and seen["batches_while_running"], seen
    assert seen["registered"] == 1 and not seen["disabled"], seen
    assert (seen["flush_interval_ms"], seen["flush_rows"], seen["max_rows"]) == (2000, 1, 10000), seen
    assert seen["failed_writes"] == 0, seen
    assert "streamdoctor listener: bad setting spark.streamdoctor.flushRows=0; using 1" in stderr, stderr[-3000:]
    assert "streamdoctor listener: bad setting spark.streamdoctor.maxRows=lots; using the default 10000" in stderr, stderr[-3000:]
    assert "flushIntervalSeconds" not in stderr, "2s is a valid interval"


def test_the_value_constructor_clamps_instead_of_throwing(run):
    seen = step(run, "clamps")
    assert seen == {"flush_interval_ms": 0, "flush_rows": 1, "max_rows": 1, "disabled": False}, seen


def test_a_column_added_to_the_table_does_not_stop_the_writes(run):
    """ALTER TABLE ADD COLUMNS (note STRING): rows are inserted by name with a column list, the new column NULL."""
    seen = step(run, "drift")
    assert seen["failed_writes"] == 0 and seen["last_error"] is None, seen
    assert seen["rows"] >= 3 and seen["notes"] == [None] and seen["buffered"] == 0, seen
