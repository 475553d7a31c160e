"""Two listener fixes on real local Spark, each in child processes (a fresh JVM per run):

- The Scala listener's flush thread is made inside onQueryStarted, on the query's own thread, and so inherited that
  query's job group (the runId), description and interruptOnCancel: its writes showed as that query's
  "batch = init" jobs and stopping that query cancelled a write in progress (scala_job_group_job.py).
- event_time was to_timestamp(text): under the user's spark.sql.timestampType=TIMESTAMP_NTZ that drops the
  trailing Z, and the instant landed shifted by the session time zone's offset (event_time_job.py)."""

import json
import os
import sys

import pytest

import checks
import sparkhelpers as h

PY35 = os.environ.get("STREAMDOCTOR_SPARK35_PYTHON", "")
JOB_GROUP = "streamdoctor-listener"
DESCRIPTION = "StreamDoctor listener: append progress"


@pytest.fixture(scope="module")
def job_group_run(workdir):
    result = h.run_scala_job("scala_job_group_job.py", workdir / "scala-job-group")
    return json.loads(result.stdout.strip().splitlines()[-1])


def step(run, name):
    seen = run[name]
    assert "error" not in seen, seen["error"]
    return seen


def test_scala_timer_writes_are_the_listeners_jobs_not_the_querys(job_group_run):
    """The timer's write (held pending while every task slot is busy) is not in the job group of the query whose
    onQueryStarted made the flush thread: it has the listener's own group and description."""
    seen = step(job_group_run, "timer_write")
    assert seen["written_when_slots_held"] == 0 and seen["buffered_when_slots_held"] >= 1, seen
    writes = seen["write_jobs"]
    assert writes, seen
    for job_id, (group, description, status) in writes.items():
        assert int(job_id) not in seen["query_group_jobs"], f"the listener's write is job {job_id} of the query's group {seen['run_id']}"
        assert group == JOB_GROUP, f"job {job_id}: group {group!r}, description {description!r}"
        assert description and description.startswith(DESCRIPTION), description
        assert status == "RUNNING", status


def test_scala_stopping_the_query_never_cancels_a_listener_write(job_group_run):
    """The query stopped while the timer's write waits for a slot: the write is not cancelled (Spark cancels the
    query's job group), it completes once slots free up, every batch is written once and nothing failed."""
    seen = step(job_group_run, "timer_write")
    assert all(status == "RUNNING" for _, _, status in seen["write_jobs_after_stop"].values()), seen["write_jobs_after_stop"]
    assert all(status == "SUCCEEDED" for _, _, status in seen["write_jobs_at_end"].values()), seen["write_jobs_at_end"]
    assert (seen["failed_writes"], seen["last_error"]) == (0, None)
    assert seen["buffered_after_release"] == 0
    assert seen["table_batches"] == seen["executed_batches"] and seen["table_batches"], seen


def test_scala_flush_on_a_users_thread_writes_as_the_listener_and_keeps_the_threads_job_group(job_group_run):
    seen = step(job_group_run, "user_flush")
    assert seen["wrote"] >= 1
    assert (seen["group_after"], seen["description_after"]) == ("streamdoctor-test-user", "the user's own work")
    for job_id, (group, description, status) in seen["write_jobs"].items():
        assert group == JOB_GROUP and description.startswith(DESCRIPTION), (job_id, group, description)
        assert status == "SUCCEEDED", status
    assert seen["failed_writes"] == 0


def test_scala_listener_parses_the_progress_timestamp_tolerantly(job_group_run):
    assert step(job_group_run, "epoch_millis")["parsed"] == [
        ["2026-09-14T10:00:00.000Z", 1789380000000],
        ["2024-01-01T00:00:00.123Z", 1704067200123],
        ["2024-01-01T02:00:00.5+02:00", 1704067200500],
        ["2024-01-01T00:00:00", 1704067200000],
        [None, None],
        ["", None],
        ["not a time", None],
    ]


def run_event_time(python, mode, folder):
    return h.run_job_script(python, "event_time_job.py", mode, folder)


@pytest.mark.parametrize("python, mode", [("4.0", "py"), ("3.5", "py"), ("4.0", "scala")])
def test_event_time_is_the_progress_instant_under_timestamp_ntz_and_a_western_time_zone(workdir, python, mode):
    """spark.sql.timestampType=TIMESTAMP_NTZ and spark.sql.session.timeZone=America/Los_Angeles in the user's
    session (where to_timestamp of the progress text is a TIMESTAMP_NTZ): the stored event_time is the instant of
    the progress timestamp, for every batch."""
    if python == "3.5":
        assert PY35 and os.path.exists(PY35), "STREAMDOCTOR_SPARK35_PYTHON is not set: run the suite with npm run test:spark"
    if mode == "scala":
        assert h.SCALA_JAR.is_file(), f"{h.SCALA_JAR} is missing (npm run test:spark builds it)"
    run = run_event_time(PY35 if python == "3.5" else sys.executable, mode, workdir / f"event-time-{python}-{mode}")
    assert run["to_timestamp_type"] == "timestamp_ntz", "the session does not reproduce the case"
    assert run["table_type"] == "timestamp", run["table_type"]
    assert len(run["executed"]) >= 3 and run["failed_writes"] == 0, run
    assert run["rows"] == sorted([batch, checks.ms(text)] for batch, text in run["executed"]), run


@pytest.mark.parametrize(
    "text, expected",
    [
        ("2026-09-14T10:00:00.000Z", 1789380000000),
        ("2024-01-01T00:00:00.123Z", 1704067200123),
        ("2024-01-01T00:00:00Z", 1704067200000),
        ("2024-01-01T02:00:00.5+02:00", 1704067200500),
        ("2024-01-01T00:00:00.123456Z", 1704067200123),
        (None, None),
        ("", None),
        ("not a time", None),
        ("2024-13-01T00:00:00Z", None),
    ],
)
def test_python_listener_parses_the_progress_timestamp_tolerantly(text, expected):
    from streamdoctor_listener import StreamDoctorListener

    assert StreamDoctorListener._epoch_ms(text) == expected
