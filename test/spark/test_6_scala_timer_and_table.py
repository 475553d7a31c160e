"""The Scala listener's flush timer and table check on real local Spark: the jar registered by Spark config
(flushIntervalSeconds 2) in a fresh classic JVM (scala_timer_job.py), driven through Py4J. The Python
listener's equivalents are in test_1_classic_python.py."""

import json

import pytest

import sparkhelpers as h

INTERVAL_S = 2
ONE_LINE_HINT = "run listener/progress_table.sql (with your catalog and schema) first"
COLUMNS = "query_id, run_id, query_name, batch_id, event_time, ingested_at, progress_json"


@pytest.fixture(scope="module")
def run(workdir):
    result = h.run_scala_job("scala_timer_job.py", workdir / "scala-timer")
    return json.loads(result.stdout.strip().splitlines()[-1]), result.stderr


def step(run, name):
    seen = run[0][name]
    assert "error" not in seen, seen["error"]
    return seen


def assert_refused(refusal, *phrases):
    assert refusal is not None, "accepted"
    kind, message = refusal
    assert kind == "IllegalArgumentException", refusal
    assert message.startswith("streamdoctor listener: progress table ") and message.endswith(ONE_LINE_HINT), message
    assert "\n" not in message, message
    for phrase in phrases:
        assert phrase in message, message


def test_the_timer_writes_a_long_triggers_row_flush_interval_after_its_report(run):
    """A trigger minutes long (no event meanwhile): the daemon thread appears with the query, writes the first
    batch's row once it is flushIntervalSeconds old (not before), while the query runs and before its next
    trigger, stays while the query runs with nothing buffered, and is gone once the query has stopped."""
    seen = step(run, "long_trigger")
    assert seen["threads_before_any_query"] == []
    assert seen["batches"] == [seen["first_batch"]]
    assert seen["active_when_visible"] and seen["executed_when_visible"] == 1, seen
    assert INTERVAL_S - 0.05 <= seen["ingested_after_s"] < INTERVAL_S + 4, f"written {seen['ingested_after_s']:.2f} s after the report"
    # Readable once that write commits (a JVM's first write is slow on 2 shared cores), long before the next trigger.
    assert seen["visible_after_s"] < 20, f"readable {seen['visible_after_s']:.2f} s after the report"
    assert seen["buffered_while_running"] == 0
    assert seen["threads_while_running"] == [[True, True]], "one live daemon flush thread while the query runs"
    assert seen["threads_after_stop"] == [], "the flush thread outlived the query and the buffer"
    assert seen["failed_writes"] == 0


def test_flush_rows_writes_at_once_without_waiting_for_the_interval(run):
    """flushRows 3 with a 1 h interval: the first write holds exactly the first three rows, made right after
    the third report while the query runs; the query's end writes the rest, every batch once."""
    seen = step(run, "flush_rows")
    assert seen["active_when_written"]
    assert seen["first_write_batches"] == seen["first_batches"] and len(seen["first_batches"]) == 3, seen
    assert -0.05 <= seen["first_write_after_third_report_s"] < 5, seen
    assert seen["table_batches"] == seen["executed_batches"], seen
    assert seen["flush_at_end"] == 0 and seen["buffered_at_end"] == 0 and seen["failed_writes"] == 0, seen
    assert seen["threads_after_stop"] == []


def test_remove_writes_what_is_buffered_unregisters_and_ends_its_thread(run):
    """remove() while a query runs: the rows it buffered are written, it is no longer registered, its flush thread
    ends while the config-registered listener's stays, and later reports are not buffered. Before remove(), only
    spark.streams.removeListener existed, after which the thread ran for the life of the JVM."""
    seen = step(run, "remove")
    assert seen["threads_before"] == [[True, True], [True, True]], seen
    assert seen["removed_wrote"] >= seen["buffered_before"] >= 2 and seen["buffered_after"] == 0, seen
    assert not seen["still_registered"]
    assert seen["threads_after"] == [[True, True]], "the removed listener's flush thread is still alive"
    assert seen["buffered_later"] == 0 and seen["table_rows"] == seen["removed_wrote"], seen
    assert seen["failed_writes"] == 0


def test_a_missing_table_keeps_the_rows_retries_on_the_timer_and_is_never_created(run):
    """The table dropped under the config-registered listener: writes fail without touching the stream,
    every row is kept, the daemon thread stays with no query running and retries every interval, and no
    table is created; once the table is made again the kept rows are written once and the thread ends."""
    seen, stderr = step(run, "missing_table"), run[1]
    assert not seen["table_created"], "the listener created the table"
    assert seen["running_after_write"]
    assert seen["flush_at_end"] == 0 and seen["written_while_missing"] == 0
    assert seen["buffered_at_end"] == len(seen["executed_batches"]) >= 4, seen
    assert seen["failed_writes_after_end"] >= 1, "no retry after the query ended"
    assert seen["threads_while_buffered"] == [[True, True]], "no flush thread while rows are buffered"
    assert "streaming_progress" in seen["last_error"], seen["last_error"]
    assert "streamdoctor listener: could not append" in stderr
    assert seen["buffered_after_create"] == 0
    assert seen["table_batches"] == seen["executed_batches"], seen
    assert seen["threads_after_write"] == []


def test_check_table_and_install_refuse_a_missing_or_misshapen_table_in_one_line(run):
    """checkTable and install throw one line naming the table and progress_table.sql for a missing table, an
    unknown catalog, other columns, or the right columns in another order; install then registers nothing and
    creates nothing; the table of progress_table.sql passes and install registers the listener."""
    seen = step(run, "table_check")
    assert_refused(seen["missing"], "spark_catalog.streamdoctor.streaming_progres does not exist")
    assert_refused(seen["install_missing"], "does not exist")
    assert_refused(seen["no_catalog"], "no_such_catalog.streamdoctor.streaming_progress cannot be found")
    assert_refused(seen["wrong_columns"], f"has columns (query_id, progress), not ({COLUMNS})")
    assert_refused(seen["install_wrong_columns"], "has columns (query_id, progress)")
    assert seen["reordered_columns"][:2] == ["run_id", "query_id"]
    assert_refused(seen["reordered"], "has columns (run_id, query_id, query_name")
    assert seen["listeners_added_by_refusals"] == 0 and not seen["typo_created"]
    assert seen["good"] is None
    assert seen["install_good_registers"] == 1
