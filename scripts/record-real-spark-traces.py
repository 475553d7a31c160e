"""Records real Structured Streaming progress traces for StreamDoctor's eval, on local Spark through the
real Python listener (listener/python), into test/fixtures/real-spark/NAME.jsonl + NAME.labels.json.

RUN ON DEMAND ONLY: the traces are committed, and neither CI nor `npm run test:spark` runs this (the
whole set takes about 50 minutes of wall time on 2 cores, most of it the blocked sink). The kafka-*
traces start a local Kafka broker from jars Maven resolves (test/spark/kafka_broker.py): they need
`mvn` and Maven Central. Rerun it when the listener's output or the workloads change, then review the
labels:

    bash scripts/spark-venv.sh                      # the pinned venv (.venv-spark/)
    .venv-spark/bin/python scripts/record-real-spark-traces.py [NAME ...] [--block-seconds 360]

Each trace: one local[2] Spark session, one streaming query (`interleaved`: three at once), the
listener installed with `install(spark, table=...)`; after the queries stop, the rows the listener
wrote for them are read back from the table and written out verbatim (progress_json, one per line,
in batch order; several queries interleaved by the time the listener wrote them). The labels say
which incident kinds must be found and from which batch; see test/fixtures/real-spark/README.md.
"""

import argparse
import json
import os
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "test" / "spark"))

import sparkhelpers as h  # noqa: E402
import workloads as w  # noqa: E402
from kafka_broker import KafkaBroker  # noqa: E402
from kafka_broker import spark_conf as kafka_spark_conf  # noqa: E402

OUT = REPO / "test" / "fixtures" / "real-spark"
TRIGGER_MS = 1000


def trigger():
    return f"{TRIGGER_MS} milliseconds"


# ---- workloads: each runs one query to completion and returns (query, facts for the labels) ----


def healthy(spark, work, args):
    query = w.rate(spark, "healthy_rate", work / "cp", rows_per_second=20, trigger=trigger())
    time.sleep(150)
    query.stop()
    return query, {"rowsPerSecond": 20, "seconds": 150}


def overloaded(spark, work, args):
    """A Python UDF that costs 0.02 s a row for the first 60 s, then 0.1 s a row (a dependency slowing
    down), on 2 cores: capacity drops from ~100 to ~20 rows/s against 24 rows/s arriving, so from then
    on each batch takes longer than the one before."""
    slow_from = time.time() + 60
    query = slow_udf_query(spark, work, "overloaded_slow_udf", 24, lambda now: 0.1 if now >= slow_from else 0.02)
    time.sleep(300)
    query.stop()
    return query, {"rowsPerSecond": 24, "udfSecondsPerRow": {"first60s": 0.02, "after": 0.1}, "slowFromMs": int(slow_from * 1000), "cores": 2, "seconds": 300}


def slow_udf_query(spark, work, name, rows_per_second, seconds_per_row, frame=None, column="value"):
    """rate source (or `frame`) → a Python UDF that sleeps `seconds_per_row(now)` per row on `column`
    (a long) → noop sink."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import LongType

    def slow(value):
        import time as t

        t.sleep(seconds_per_row(t.time()))
        return value

    if frame is None:
        frame = spark.readStream.format("rate").option("rowsPerSecond", rows_per_second).load()
    return (
        frame.select(F.udf(slow, LongType())(column).alias("value"))
        .writeStream.format("noop")
        .queryName(name)
        .option("checkpointLocation", str(work / "cp"))
        .trigger(processingTime=trigger())
        .start()
    )


def mild_overload(spark, work, args):
    """20 rows/s through a UDF at 0.06 s a row for the first 60 s (capacity ~33 rows/s on 2 cores, 60 %
    load), then 0.1125 s a row: capacity ~17.8 rows/s, a 12.5 % overload. The rate source reports no
    backlog, so the lag lives in batch durations that grow batch after batch."""
    slow_from = time.time() + 60
    query = slow_udf_query(spark, work, "mild_overload_udf", 20, lambda now: 0.1125 if now >= slow_from else 0.06)
    time.sleep(240)
    query.stop()
    return query, {"rowsPerSecond": 20, "udfSecondsPerRow": {"first60s": 0.06, "after": 0.1125}, "slowFromMs": int(slow_from * 1000), "cores": 2, "seconds": 240}


def capacity_dip(spark, work, args):
    """20 rows/s through a UDF at 0.05 s a row (~50 % load on 2 cores) that slows to 0.13 s a row from
    60 s to 150 s (capacity ~15 rows/s: a 30 % overload), then is fast again: one lag episode that
    drains within a minute, followed by two minutes of healthy batches."""
    slow_from = time.time() + 60
    slow_until = slow_from + 90
    query = slow_udf_query(spark, work, "capacity_dip_udf", 20, lambda now: 0.13 if slow_from <= now < slow_until else 0.05)
    time.sleep(300)
    query.stop()
    return query, {"rowsPerSecond": 20, "udfSecondsPerRow": {"first60s": 0.05, "next90s": 0.13, "after": 0.05}, "slowFromMs": int(slow_from * 1000), "slowUntilMs": int(slow_until * 1000), "cores": 2, "seconds": 300}


def restart_catch_up(spark, work, args):
    """20 rows/s through a UDF at 0.05 s a row (~50 % load on 2 cores); the query stops after 60 s and
    starts again from its checkpoint 120 s later. The rate source then produces the rows of the
    downtime in the first batch (about 2,400), and the backlog drains in a few minutes, well within
    the 30-minute catch-up budget: an aftermath that must stay quiet."""
    first = slow_udf_query(spark, work, "restart_catch_up_udf", 20, lambda now: 0.05)
    time.sleep(60)
    first.stop()
    down_from = time.time()
    time.sleep(120)
    restarted_at = time.time()
    query = slow_udf_query(spark, work, "restart_catch_up_udf", 20, lambda now: 0.05)
    time.sleep(240)
    query.stop()
    return query, {"rowsPerSecond": 20, "udfSecondsPerRow": 0.05, "downFromMs": int(down_from * 1000), "restartedAtMs": int(restarted_at * 1000), "cores": 2, "seconds": 420}


def near_capacity(spark, work, args):
    """20 rows/s through a UDF at 0.09 s a row on 2 cores (capacity ~22 rows/s, ~90 % load) for 240 s:
    with Spark's per-batch overhead, batches lengthen until each one covers it, then hold there with
    real noise: the query keeps up."""
    query = slow_udf_query(spark, work, "near_capacity_udf", 20, lambda now: 0.09)
    time.sleep(240)
    query.stop()
    return query, {"rowsPerSecond": 20, "udfSecondsPerRow": 0.09, "cores": 2, "seconds": 240}


def interleaved(spark, work, args):
    """Three queries at once in one session, their progress interleaved in the table as the bot reads
    it: two healthy rate sources into the noop sink and one through a UDF at 0.005 s a row (one
    partition, so one task slot: far within capacity) that slows to 0.065 s a row after 90 s (~15 rows/s
    against 20 arriving: a 30 % overload, more with the per-batch overhead). Each source has one
    partition, so the slow query's tasks hold one of the 2 slots and the healthy queries keep the other."""
    from pyspark.sql import functions as F

    def one_partition(rows_per_second):
        return spark.readStream.format("rate").option("rowsPerSecond", rows_per_second).option("numPartitions", 1).load()

    def noop(frame, name):
        return (
            frame.select(F.col("value"), (F.col("value") % 7).alias("bucket"))
            .writeStream.format("noop")
            .queryName(name)
            .option("checkpointLocation", str(work / name / "cp"))
            .trigger(processingTime=trigger())
            .start()
        )

    slow_from = time.time() + 90
    clicks = noop(one_partition(20), "interleaved_clicks")
    events = noop(one_partition(10), "interleaved_events")
    orders = slow_udf_query(spark, work / "orders", "interleaved_orders_udf", 20, lambda now: 0.065 if now >= slow_from else 0.005, frame=one_partition(20))
    time.sleep(300)
    for query in (orders, clicks, events):
        query.stop()
    return [orders, clicks, events], {
        "queries": {"interleaved_orders_udf": {"rowsPerSecond": 20, "udfSecondsPerRow": {"first90s": 0.005, "after": 0.065}, "partitions": 1}, "interleaved_clicks": {"rowsPerSecond": 20, "partitions": 1}, "interleaved_events": {"rowsPerSecond": 10, "partitions": 1}},
        "slowQuery": "interleaved_orders_udf",
        "slowFromMs": int(slow_from * 1000),
        "cores": 2,
        "seconds": 300,
    }


def dedupe_no_watermark(spark, work, args):
    query = w.dedupe_unbounded(spark, "dedupe_no_watermark", work / "cp", rows_per_second=20, trigger=trigger())
    time.sleep(150)
    query.stop()
    return query, {"rowsPerSecond": 20, "seconds": 150}


def watermark_aggregation(spark, work, args):
    query = w.windowed_count(
        spark, "watermark_window_count", work / "cp", rows_per_second=20, window="10 seconds", watermark="10 seconds", trigger=trigger()
    )
    time.sleep(180)
    query.stop()
    return query, {"rowsPerSecond": 20, "window": "10 seconds", "watermark": "10 seconds", "seconds": 180}


def files_behind_cap(spark, work, args):
    """maxFilesPerTrigger=1 at a 1 s trigger admits at most one file a second. Files arrive one every
    2 s for 40 s (keeps up), then 3 a second for 100 s: the backlog of files grows by ~2 a second."""
    folder = work / "input"
    w.write_json_files(folder, files=1, rows_per_file=100)
    query = w.files(spark, "files_behind_cap", work / "cp", folder, max_files_per_trigger=1, trigger=trigger())
    written = [1]
    speedup = {}

    def writer():
        end_slow = time.time() + 40
        while time.time() < end_slow:
            time.sleep(2)
            w.write_json_files(folder, files=1, rows_per_file=100, start=written[0])
            written[0] += 1
        speedup["ms"] = int(time.time() * 1000)
        end_fast = time.time() + 100
        while time.time() < end_fast:
            time.sleep(1 / 3)
            w.write_json_files(folder, files=1, rows_per_file=100, start=written[0])
            written[0] += 1

    thread = threading.Thread(target=writer)
    thread.start()
    thread.join()
    time.sleep(5)
    query.stop()
    return query, {"maxFilesPerTrigger": 1, "rowsPerFile": 100, "filesWritten": written[0], "speedupAtMs": speedup["ms"]}


def kafka_frame(spark, args, topic, max_offsets_per_trigger=None):
    """A Kafka source on the recorder's local broker, from the topic's latest offsets."""
    reader = spark.readStream.format("kafka").option("kafka.bootstrap.servers", args.kafka.bootstrap).option("subscribe", topic).option("startingOffsets", "latest")
    if max_offsets_per_trigger is not None:
        reader = reader.option("maxOffsetsPerTrigger", max_offsets_per_trigger)
    return reader.load()


def noop_query(frame, work, name):
    return frame.selectExpr("offset", "partition").writeStream.format("noop").queryName(name).option("checkpointLocation", str(work / "cp")).trigger(processingTime=trigger()).start()


def wait_for_batches(query, batches=2):
    """Waits until the query has run `batches` batches (its Kafka offsets are planned from then on)."""
    h.wait_until(lambda: len(query.recentProgress) >= batches, 180, f"{query.name}'s first batches", step_s=0.5)


def kafka_healthy(spark, work, args):
    """20 records/s into 4 partitions, read uncapped into the noop sink: far within capacity."""
    topic = "kafka_healthy"
    args.kafka.create_topic(topic, 4)
    query = noop_query(kafka_frame(spark, args, topic), work, "kafka_healthy_noop")
    wait_for_batches(query)
    producer = args.kafka.produce(topic, 20, 150)
    time.sleep(150)
    query.stop()
    producer.kill()
    return query, {"recordsPerSecond": 20, "partitions": 4, "seconds": 150}


def kafka_capped_overload(spark, work, args):
    """maxOffsetsPerTrigger=30 at a 1 s trigger admits at most 30 records a second; 20 a second arrive
    for 60 s (keeps up), then 45 a second: the offsets behind grow by ~15 a second, and the report
    shows it (latestOffset past endOffset, non-zero *OffsetsBehindLatest)."""
    topic = "kafka_capped_overload"
    args.kafka.create_topic(topic, 4)
    query = noop_query(kafka_frame(spark, args, topic, max_offsets_per_trigger=30), work, "kafka_capped_overload_noop")
    wait_for_batches(query)
    base = args.kafka.produce(topic, 20, 240)
    time.sleep(60)
    speedup_ms = int(time.time() * 1000)
    extra = args.kafka.produce(topic, 25, 180)
    time.sleep(150)
    query.stop()
    base.kill()
    extra.kill()
    return query, {"recordsPerSecond": {"first60s": 20, "after": 45}, "maxOffsetsPerTrigger": 30, "partitions": 4, "speedupAtMs": speedup_ms, "seconds": 210}


def kafka_uncapped_overload(spark, work, args):
    """20 records/s into 4 partitions, read with no maxOffsetsPerTrigger through a UDF at 0.02 s a record
    (capacity ~100 records/s on 2 cores, well within it with Kafka's and Python's per-batch overhead)
    until 90 s after the start, then 0.1125 s: capacity ~17.8 records/s, a 12.5 % overload. Uncapped, each batch reads everything up to the latest offset it
    planned with, so open-source Spark reports latestOffset equal to endOffset and every
    *OffsetsBehindLatest metric 0: the backlog lives in batch durations that grow batch after batch."""
    topic = "kafka_uncapped_overload"
    args.kafka.create_topic(topic, 4)
    # Fixed before the query starts: the UDF is pickled to the Python workers with it.
    slow_from = time.time() + 90
    query = slow_udf_query(
        spark, work, "kafka_uncapped_overload_udf", 20, lambda now: 0.1125 if now >= slow_from else 0.02, frame=kafka_frame(spark, args, topic), column="offset"
    )
    wait_for_batches(query)
    producer = args.kafka.produce(topic, 20, 330)
    time.sleep(max(0.0, slow_from - time.time()) + 180)
    query.stop()
    producer.kill()
    return query, {"recordsPerSecond": 20, "partitions": 4, "udfSecondsPerRecord": {"first90s": 0.02, "after": 0.1125}, "slowFromMs": int(slow_from * 1000), "cores": 2, "seconds": 270}


def sink_blocked(spark, work, args):
    """foreachBatch sink that blocks for --block-seconds in batch 20 (a hung external write), then
    resumes; the rate source keeps producing meanwhile."""
    block_at = 20
    block_s = args.block_seconds

    def sink(frame, batch_id):
        import time as t

        frame.count()
        if batch_id == block_at:
            t.sleep(block_s)

    frame = spark.readStream.format("rate").option("rowsPerSecond", 20).load()
    query = (
        frame.writeStream.foreachBatch(sink)
        .queryName("sink_blocked_foreach_batch")
        .option("checkpointLocation", str(work / "cp"))
        .trigger(processingTime=trigger())
        .start()
    )
    h.wait_until(lambda: any(p.batchId > block_at + 40 for p in query.recentProgress), block_s + 600, "40 batches after the block", step_s=2)
    query.stop()
    return query, {"rowsPerSecond": 20, "blockedBatchId": block_at, "blockSeconds": block_s}


# ---- labels: derived from what the run did, then written next to the trace ----


def first_sustained_overrun(progress):
    """First batch from which every batch takes longer than the trigger interval."""
    onset = None
    for p in progress:
        if p["batchDuration"] > TRIGGER_MS * 1.05:
            onset = p["batchId"] if onset is None else onset
        else:
            onset = None
    return onset


def healthy_max_ms(progress, until_ms):
    """The longest batch while healthy: those ending before `until_ms`, past the first quarter of them
    (start-up batches run long while the JVM and the Python workers warm up)."""
    before = [p["batchDuration"] for p in progress if h_ms(p["timestamp"]) + p["batchDuration"] < until_ms]
    return max(before[len(before) // 4 :] or [TRIGGER_MS])


def back_within_for_good(progress, from_ms, limit_ms):
    """First batch starting at or after `from_ms` from which every batch takes at most `limit_ms`; None if none."""
    back = None
    for p in progress:
        if h_ms(p["timestamp"]) < from_ms:
            continue
        if p["batchDuration"] <= limit_ms:
            back = p["batchId"] if back is None else back
        else:
            back = None
    return back


def slowdown_onset(progress, facts):
    """Where a UDF slowdown's lag starts: the first batch running when the UDF slowed, or the start of the
    batches overrunning the trigger for good, whichever is later."""
    last = progress[-1]["batchId"]
    onset = first_sustained_overrun(progress)
    slowed = next((p["batchId"] for p in progress if h_ms(p["timestamp"]) + p["batchDuration"] >= facts["slowFromMs"]), last)
    return max(onset if onset is not None else last, slowed)


def labels_for(name, progress, facts):
    last = progress[-1]["batchId"]
    if name == "healthy":
        return [], [], "A rate source well within capacity: nothing may fire."
    if name == "overloaded":
        onset = slowdown_onset(progress, facts)
        return (
            [{"kind": "lag", "onsetBatchId": onset, "detectByBatchId": min(last, onset + 15)}],
            [],
            "After 60 s the UDF slows from 0.02 to 0.1 s a row: capacity (~20 rows/s on 2 cores) falls below the 24 rows/s arriving, and batch durations grow batch after batch (the backlog lives inside the batches: the rate source reports no offsets behind).",
        )
    if name == "mild-overload":
        onset = slowdown_onset(progress, facts)
        after = [p["batchDuration"] for p in progress if p["batchId"] >= onset]
        growth = (after[-1] / after[0]) ** (1 / max(1, len(after) - 1)) - 1
        return (
            [{"kind": "lag", "onsetBatchId": onset, "detectByBatchId": min(last, onset + 8)}],
            [],
            f"After 60 s the UDF slows from 0.06 to 0.1125 s a row: capacity falls to ~17.8 rows/s on 2 cores (less with the per-batch overhead), 12 % or more below the 20 rows/s arriving. The rate source reports no backlog, so batch durations carry it, growing {growth:.0%} a batch on average from the onset; a sustained overload of 10 % or more must be found within 8 batches of its onset.",
        )
    if name == "capacity-dip":
        # Against the batches' healthy range rather than the trigger: at ~50 % load real batches still
        # overrun the 1 s trigger now and then.
        healthy_ms = healthy_max_ms(progress, facts["slowFromMs"])
        onset = next((p["batchId"] for p in progress if h_ms(p["timestamp"]) + p["batchDuration"] >= facts["slowFromMs"] and p["batchDuration"] > healthy_ms), last)
        recovered = back_within_for_good(progress, facts["slowUntilMs"], healthy_ms * 1.1)
        if recovered is None:
            raise RuntimeError("capacity-dip: the batches never came back within their healthy range: record it again (or shorten the slow phase)")
        return (
            [{"kind": "lag", "onsetBatchId": onset, "detectByBatchId": min(last, onset + 8), "resolveByBatchId": min(last, recovered + 12)}],
            [],
            f"From 60 s to 150 s the UDF slows from 0.05 to 0.13 s a row: capacity (~15 rows/s on 2 cores) falls 30 % below the 20 rows/s arriving and batch durations grow; then it is fast again, the backlog drains and from batch {recovered} every batch is back within its healthy range (at most {round(healthy_ms * 1.1)} ms). One lag incident, found within 8 batches of its onset and resolved within 12 batches of that recovery (a hold period and a few batches); a second incident would be a false alarm.",
        )
    if name == "restart-catch-up":
        # Drained: the first batch back within the healthy range after the longest one of the new run
        # (the downtime's rows); a later noisy batch does not undo it.
        healthy_ms = healthy_max_ms(progress, facts["downFromMs"])
        after = [p for p in progress if h_ms(p["timestamp"]) >= facts["restartedAtMs"]]
        peak = max(range(len(after)), key=lambda i: after[i]["batchDuration"]) if after else 0
        back = next((p for p in after[peak:] if p["batchDuration"] <= healthy_ms * 1.1), None)
        if back is None:
            raise RuntimeError("restart-catch-up: the backlog of the downtime never drained: record it again (or shorten the downtime)")
        drained, drained_ms = back["batchId"], h_ms(back["timestamp"])
        return [], [], f"The query stops after 60 s and restarts from its checkpoint 120 s later; the rate source delivers the downtime's rows in the first batches and the backlog drains by batch {drained}, {(drained_ms - facts['restartedAtMs']) / 1000:.0f} s after the restart, well within the 30-minute catch-up budget. Nothing may fire."
    if name == "near-capacity":
        # Keeping up means batch durations level off; a run whose batches kept growing was an
        # overload on this machine, not this trace: record it again (or lower the UDF cost).
        durations = [p["batchDuration"] for p in progress if p["numInputRows"] > 0]
        third = max(1, len(durations) // 3)
        early, late = sorted(durations[third : 2 * third]), sorted(durations[-third:])
        if late[len(late) // 2] > 1.5 * early[len(early) // 2]:
            raise RuntimeError(f"near-capacity: batch durations kept growing (median {early[len(early) // 2]} ms, then {late[len(late) // 2]} ms): not a query keeping up")
        settled = late[len(late) // 2]
        return [], [], f"20 rows/s through a UDF at 0.09 s a row on 2 cores (~90 % load): with Spark's per-batch overhead, batches lengthen until each one covers it (here to about {settled / 1000:.1f} s, {settled / TRIGGER_MS:.0f}x the trigger) and then hold there with real noise: the query keeps up. Nothing may fire."
    if name == "interleaved":
        slow = facts["slowQuery"]
        own = [p for p in progress if p["name"] == slow]
        before = [p for p in own if h_ms(p["timestamp"]) + p["batchDuration"] < facts["slowFromMs"]]
        # A slow query that never kept up before its slowdown is no trace of a query falling behind.
        settled = sorted(p["batchDuration"] for p in before[len(before) // 4 :])
        if len(before) < 30 or settled[len(settled) // 2] > 1.5 * TRIGGER_MS:
            raise RuntimeError(f"interleaved: {slow} did not keep up before its slowdown ({len(before)} batches): record it again on a quieter machine")
        onset = slowdown_onset(own, facts)
        last_own = own[-1]["batchId"]
        others = sorted({p["name"] for p in progress} - {slow})
        return (
            [{"kind": "lag", "query": slow, "onsetBatchId": onset, "detectByBatchId": min(last_own, onset + 8)}],
            [],
            f"Three queries in one session, their reports interleaved as the progress table holds them. {slow}'s UDF slows from 0.005 to 0.065 s a row after 90 s: on its one task slot capacity falls to ~15 rows/s against 20 arriving, and its batch durations grow batch after batch (the rate source reports no backlog). Lag on {slow} must be found within 8 of its batches of the onset; {' and '.join(others)} keep up on the other slot and must stay quiet.",
        )
    if name == "dedupe-no-watermark":
        first = next(p["batchId"] for p in progress if p["numInputRows"] > 0)
        return (
            [{"kind": "state_growth", "onsetBatchId": first, "detectByBatchId": min(last, first + 30)}],
            [],
            "dropDuplicates on an ever-new key with no watermark: dedupe state rows rise every batch, nothing is ever removed.",
        )
    if name == "watermark-aggregation":
        return [], [], "Windowed count with a 10 s watermark: state fills, then windows are evicted (numRowsRemoved > 0); bounded, nothing may fire."
    if name == "files-behind-cap":
        # Real, but not in the progress: open-source FileStreamSource reports neither latestOffset nor
        # files outstanding, and every batch reads exactly the capped one file, before and after.
        return [], ["lag"], "Files arrive three a second from batch {0} on against maxFilesPerTrigger=1 at a 1 s trigger: the query falls behind by ~2 files a second. Open-source FileStreamSource progress carries no sign of it (latestOffset null, no numFilesOutstanding metric; every batch reads the one file the cap admits, as it did when it kept up), so nothing is required; a lag incident would be right, so it is allowed.".format(
            next((p["batchId"] for p in progress if h_ms(p["timestamp"]) >= facts["speedupAtMs"]), last)
        )
    if name == "kafka-healthy":
        return [], [], "20 records/s into 4 Kafka partitions, read uncapped into the noop sink, far within capacity: nothing may fire."
    if name == "kafka-capped-overload":
        onset = next((p["batchId"] for p in progress if h_ms(p["timestamp"]) >= facts["speedupAtMs"]), last)
        return (
            [{"kind": "lag", "onsetBatchId": onset, "detectByBatchId": min(last, onset + 8)}],
            [],
            f"maxOffsetsPerTrigger=30 at a 1 s trigger admits at most 30 records a second; from batch {onset} on, 45 a second arrive instead of 20: the offsets behind grow by about 15 a second, and the reports show it (latestOffset past endOffset, non-zero *OffsetsBehindLatest). Lag must be found within 8 batches of the onset.",
        )
    if name == "kafka-uncapped-overload":
        onset = slowdown_onset(progress, facts)
        rates = sorted(p["processedRowsPerSecond"] for p in progress if p["batchId"] >= onset)
        return (
            [{"kind": "lag", "onsetBatchId": onset, "detectByBatchId": min(last, onset + 8)}],
            [],
            f"90 s after the start the UDF slows from 0.02 to 0.1125 s a record: capacity falls to ~17.8 records/s on 2 cores at most (the batches from the onset processed a median {rates[len(rates) // 2]:.1f} a second), below the 20 a second arriving in Kafka. Read uncapped, every batch takes all the offsets it planned with, so the reports say latestOffset = endOffset and 0 offsets behind: the backlog is in batch durations that grow batch after batch. Lag must be found within 8 batches of the onset.",
        )
    if name == "sink-blocked":
        blocked = facts["blockedBatchId"]
        return (
            [{"kind": "stalled", "onsetBatchId": blocked, "detectByBatchId": blocked}],
            ["lag"],
            f"foreachBatch blocks for {facts['blockSeconds']} s in batch {blocked}: no progress at all meanwhile while 20 rows/s keep arriving (a stall, to be found during the silence, i.e. before batch {blocked}'s report arrives), then it resumes; the first batches after it carry the backlog, so a lag incident on the catch-up is allowed, not required.",
        )
    raise ValueError(name)


def unobservable_for(name, progress, facts):
    """Conditions that are real but leave no trace in the progress (documented, scored neither way)."""
    if name != "files-behind-cap":
        return {}
    onset = next((p["batchId"] for p in progress if h_ms(p["timestamp"]) >= facts["speedupAtMs"]), progress[-1]["batchId"])
    return {"unobservable": [{"kind": "lag", "onsetBatchId": onset, "why": "FileStreamSource reports no backlog (latestOffset null, no metrics)"}]}


def relabel(out, names):
    """Rewrites the labels of already recorded traces from their progress and recorded workload facts."""
    for name in names:
        path = out / f"{name}.labels.json"
        labels = json.loads(path.read_text())
        progress = [json.loads(line) for line in (out / f"{name}.jsonl").read_text().splitlines()]
        facts = labels["recorded"]["workload"]
        expect, allow, description = labels_for(name, progress, facts)
        rest = {k: v for k, v in labels.items() if k not in ("trace", "description", "expect", "allow", "unobservable")}
        labels = {"trace": labels["trace"], "description": description, "expect": expect, "allow": allow, **unobservable_for(name, progress, facts), **rest}
        path.write_text(json.dumps(labels, indent=2) + "\n")
        print(f"relabelled {name}: expect {expect}, allow {allow}")


def h_ms(text):
    from datetime import datetime, timezone

    return int(datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc).timestamp() * 1000)


TRACES = {
    "healthy": healthy,
    "overloaded": overloaded,
    "mild-overload": mild_overload,
    "near-capacity": near_capacity,
    "capacity-dip": capacity_dip,
    "restart-catch-up": restart_catch_up,
    "dedupe-no-watermark": dedupe_no_watermark,
    "watermark-aggregation": watermark_aggregation,
    "files-behind-cap": files_behind_cap,
    "sink-blocked": sink_blocked,
    "kafka-healthy": kafka_healthy,
    "kafka-capped-overload": kafka_capped_overload,
    "kafka-uncapped-overload": kafka_uncapped_overload,
    "interleaved": interleaved,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", default=list(TRACES), help=f"traces to record (default all: {', '.join(TRACES)})")
    parser.add_argument("--block-seconds", type=int, default=360, help="how long the sink-blocked trace blocks (default 360)")
    parser.add_argument("--out", default=str(OUT))
    parser.add_argument("--relabel", action="store_true", help="only rewrite the labels of recorded traces (no Spark)")
    args = parser.parse_args()
    unknown = [n for n in args.names if n not in TRACES]
    if unknown:
        parser.error(f"unknown trace(s) {unknown}; known: {list(TRACES)}")
    if args.relabel:
        relabel(Path(args.out), args.names)
        return
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    work = h.fresh_dir(REPO / "test" / "spark" / ".work" / f"record-{os.getpid()}")

    import pyspark
    from streamdoctor_listener import install

    # Kafka traces read from a local broker (test/spark/kafka_broker.py), the session needs its connector.
    args.kafka = KafkaBroker(work / "kafka") if any(n.startswith("kafka-") for n in args.names) else None
    try:
        spark = h.classic_session(work / "warehouse", extra=kafka_spark_conf() if args.kafka else None, app="streamdoctor-record-traces")
    except BaseException:
        if args.kafka:
            args.kafka.stop()
        raise
    h.create_progress_table(spark)
    listener = install(spark, table=h.TABLE, flush_interval_s=5)
    try:
        for name in args.names:
            started = time.time()
            print(f"== {name}", flush=True)
            ran, facts = TRACES[name](spark, h.fresh_dir(work / name), args)
            queries = ran if isinstance(ran, list) else [ran]
            for query in queries:
                exception = query.exception()
                if exception is not None:
                    raise RuntimeError(f"{name}: query {query.name} failed: {exception}")
            ids = ", ".join(f"'{query.id}'" for query in queries)
            # One query in batch order; several interleaved as the bot reads the table, by event time.
            order = "batch_id, event_time" if len(queries) == 1 else "event_time, query_id, batch_id"
            rows = h.wait_until(
                lambda: (lambda r: r if r and listener.buffered == 0 else None)(
                    spark.sql(f"SELECT batch_id, event_time, progress_json FROM {h.TABLE} WHERE query_id IN ({ids}) ORDER BY {order}").collect()
                ),
                60,
                f"{name}'s rows in the table",
            )
            progress = [json.loads(row.progress_json) for row in rows]
            (out / f"{name}.jsonl").write_text("".join(row.progress_json + "\n" for row in rows))
            expect, allow, description = labels_for(name, progress, facts)
            labels = {
                "trace": f"{name}.jsonl",
                "description": description,
                "expect": expect,
                "allow": allow,
                **unobservable_for(name, progress, facts),
                "batches": len(progress),
                "firstBatchId": min(p["batchId"] for p in progress),
                "lastBatchId": max(p["batchId"] for p in progress),
                "triggerMs": TRIGGER_MS,
                "recorded": {
                    "spark": pyspark.__version__,
                    "master": "local[2]",
                    "listener": "listener/python (install(spark, table=...))",
                    "queryName": queries[0].name if len(queries) == 1 else [query.name for query in queries],
                    "workload": facts,
                    "at": progress[0]["timestamp"],
                },
            }
            (out / f"{name}.labels.json").write_text(json.dumps(labels, indent=2) + "\n")
            print(f"   {len(progress)} progress rows, {time.time() - started:.0f} s; expect {expect}", flush=True)
    finally:
        spark.stop()
        if args.kafka:
            args.kafka.stop()
    if listener.dropped or listener.failed_writes:
        raise SystemExit(f"the listener dropped {listener.dropped} rows and failed {listener.failed_writes} writes: {listener.last_error}")


if __name__ == "__main__":
    main()
