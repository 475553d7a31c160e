"""Run by test_7_job_group_and_event_time.py in its own process (spark.jars must be on the driver's class path
from JVM start): the Scala listener registered by Spark config (flushIntervalSeconds 15), whose flush thread is
made inside onQueryStarted, on the query's own thread (job group = the runId, interruptOnCancel).

  timer_write    a long trigger (the first batch, then nothing for minutes): both task slots are held by a
                 blocking job, so the timer's write, once due, waits as a pending job; while it waits, its job
                 group and description are read from the status tracker; then the query is stopped (which
                 cancels the jobs of its group), a probe job is submitted (the DAGScheduler handles events in
                 order: once the probe is seen, the cancel has been handled), the slots are released and the
                 listener's counters read once the buffer is written
  user_flush     flush() called on a thread with a job group of its own: the write is the listener's job and
                 the thread's group is the same afterwards
  epoch_millis   StreamDoctorListener.epochMillis (event_time's source) on good and bad texts

Prints one JSON line: each step's observations, or {"error": ...} for a step that could not finish."""

import json
import os
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import sparkhelpers as h  # noqa: E402
import workloads as w  # noqa: E402

LISTENER = h.SCALA_LISTENER
FLUSH_INTERVAL_S = 15
BLOCKER_GROUP = "streamdoctor-test-blocker"
PROBE_GROUP = "streamdoctor-test-probe"
USER_GROUP = "streamdoctor-test-user"

workdir = h.fresh_dir(sys.argv[1])
os.environ["PYSPARK_PYTHON"] = sys.executable  # the blocking tasks run in Python workers
spark = h.classic_session(
    workdir / "warehouse",
    extra=h.scala_listener_conf(FLUSH_INTERVAL_S, **{"spark.sql.pyspark.jvmStacktrace.enabled": "false"}),
    app="streamdoctor-scala-job-group",
)
tracker = spark.sparkContext.statusTracker()
store = spark._jsc.sc().statusStore()


def registered():
    return h.registered_scala_listeners(spark)


def option(value):
    return value.get() if value.isDefined() else None


def job(job_id):
    """[group, description, status] of a job in the status store."""
    data = store.job(job_id)
    return [option(data.jobGroup()), option(data.description()), data.status().toString()]


def group_jobs(group):
    return sorted(tracker.getJobIdsForGroup(group))


def hold_a_slot(partition_rows, folder):
    """A task that holds its slot until the `release` file exists (5 minutes at most)."""
    import os as _os
    import time as _time

    from pyspark import TaskContext

    Path(_os.path.join(folder, f"started-{TaskContext.get().partitionId()}")).touch()
    deadline = _time.time() + 300
    while not _os.path.exists(_os.path.join(folder, "release")) and _time.time() < deadline:
        _time.sleep(0.05)
    return []


def in_group(group, action):
    """Runs action() on a new thread whose jobs are in `group` (PySpark pins a JVM thread to it)."""

    def run():
        spark.sparkContext.setJobGroup(group, group)
        action()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def step_timer_write(folder):
    (listener,) = registered()
    slots = int(spark.sparkContext.defaultParallelism)
    gate = str(folder / "gate")
    os.makedirs(gate)
    query = w.rate(spark, "scala_job_group", folder / "cp", trigger=h.long_trigger())
    blocker = probe = None
    try:
        run_id = str(query.runId)
        h.wait_until(lambda: listener.buffered() >= 1, 60, "the first batch's report at the listener")
        blocker = in_group(BLOCKER_GROUP, lambda: spark.sparkContext.parallelize(range(slots), slots).mapPartitions(lambda rows: hold_a_slot(rows, gate)).count())
        h.wait_until(lambda: all(os.path.exists(os.path.join(gate, f"started-{i}")) for i in range(slots)), 120, "every task slot held")
        seen = {"written_when_slots_held": listener.written(), "buffered_when_slots_held": listener.buffered()}

        def pending_writes():
            blocked = set(group_jobs(BLOCKER_GROUP))
            return sorted(j for j in tracker.getActiveJobsIds() if j not in blocked)


        writes = h.wait_until(pending_writes, FLUSH_INTERVAL_S + 60, "the timer's write, waiting for a task slot")
        seen.update(
            run_id=run_id,
            write_jobs={str(j): job(j) for j in writes},
            query_group_jobs=group_jobs(run_id),
        )
        query.stop()  # cancels the jobs of the query's group
        probe = in_group(PROBE_GROUP, lambda: spark.sparkContext.parallelize([0], 1).count())
        h.wait_until(lambda: group_jobs(PROBE_GROUP), 60, "the probe job (submitted after the stop's cancel)")
        seen["write_jobs_after_stop"] = {str(j): job(j) for j in writes}
        Path(gate, "release").touch()
        blocker.join(120)
        probe.join(120)
        seen["buffered_after_release"] = h.settle(listener.buffered, lambda buffered: buffered == 0, 60)
        seen["write_jobs_at_end"] = {str(j): job(j) for j in writes}
        seen["table_batches"] = sorted(r.batch_id for r in spark.sql(f"SELECT batch_id FROM {h.TABLE} WHERE query_id = '{query.id}'").collect())
        seen["executed_batches"] = sorted(json.loads(p.json)["batchId"] for p in query.recentProgress if "addBatch" in json.loads(p.json).get("durationMs", {}))
        seen["failed_writes"] = listener.failedWrites()
        seen["last_error"] = option(listener.lastError())
        return seen
    finally:
        Path(gate, "release").touch()
        query.stop()


def all_jobs():
    """{job id: [group, description, status]} of every job in the status store."""
    jobs = store.jobsList(None)
    out = {}
    for i in range(jobs.size()):
        data = jobs.apply(i)
        out[data.jobId()] = [option(data.jobGroup()), option(data.description()), data.status().toString()]
    return out


def step_user_flush(folder):
    (listener,) = registered()
    query = w.rate(spark, "scala_user_flush", folder / "cp", trigger="500 milliseconds")
    try:
        run_id = str(query.runId)
        h.wait_until(lambda: listener.buffered() >= 1, 60, "a buffered report")
        context = spark.sparkContext
        before = set(all_jobs())
        context.setJobGroup(USER_GROUP, "the user's own work")
        try:
            wrote = listener.flush(30000)
            seen = {
                "wrote": wrote,
                "group_after": context.getLocalProperty("spark.jobGroup.id"),
                "description_after": context.getLocalProperty("spark.job.description"),
            }
        finally:
            context.setLocalProperty("spark.jobGroup.id", None)
            context.setLocalProperty("spark.job.description", None)
            context.setLocalProperty("spark.job.interruptOnCancel", None)

        # The status store hears of jobs asynchronously: wait for the flush's write (a new job not the query's).
        def flush_jobs():
            return {str(j): info for j, info in all_jobs().items() if j not in before and info[0] != run_id and info[2] != "RUNNING"}

        seen["write_jobs"] = h.wait_until(flush_jobs, 60, "the flush's write job in the status store")
        seen["failed_writes"] = listener.failedWrites()
        return seen
    finally:
        query.stop()


def step_epoch_millis(folder):
    """StreamDoctorListener.epochMillis: the progress timestamp text as epoch ms; null when missing or unparsable."""
    parse = getattr(spark._jvm, LISTENER).epochMillis
    texts = ["2026-09-14T10:00:00.000Z", "2024-01-01T00:00:00.123Z", "2024-01-01T02:00:00.5+02:00", "2024-01-01T00:00:00", None, "", "not a time"]
    return {"parsed": [[text, parse(text)] for text in texts]}


try:
    h.create_progress_table(spark)
    h.run_steps(spark, workdir, [("timer_write", step_timer_write), ("user_flush", step_user_flush), ("epoch_millis", step_epoch_millis)])
finally:
    spark.stop()
