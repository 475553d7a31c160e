"""The real streaming queries the tests and the trace recorder run: each returns a started StreamingQuery.
They work on classic PySpark and over Spark Connect (everything here is DataFrame API)."""

import json
from pathlib import Path


def rate(spark, name, checkpoint, rows_per_second=20, trigger="1 second"):
    """Rate source into the noop sink: a healthy stateless stream."""
    frame = spark.readStream.format("rate").option("rowsPerSecond", rows_per_second).load()
    return (
        frame.selectExpr("value", "value % 7 AS bucket")
        .writeStream.format("noop")
        .queryName(name)
        .option("checkpointLocation", str(checkpoint))
        .trigger(processingTime=trigger)
        .start()
    )


def write_json_files(folder, files, rows_per_file, start=0):
    """Writes `files` JSON Lines files of `rows_per_file` rows each (names sort in write order)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for index in range(start, start + files):
        lines = [json.dumps({"id": index * rows_per_file + row, "file": index}) for row in range(rows_per_file)]
        tmp = folder / f".part-{index:05d}.json.tmp"
        tmp.write_text("\n".join(lines) + "\n")
        tmp.rename(folder / f"part-{index:05d}.json")


def files(spark, name, checkpoint, folder, max_files_per_trigger=2, trigger="1 second"):
    """JSON file source capped by maxFilesPerTrigger, into the noop sink."""
    frame = spark.readStream.schema("id LONG, file INT").option("maxFilesPerTrigger", max_files_per_trigger).json(str(folder))
    return (
        frame.writeStream.format("noop")
        .queryName(name)
        .option("checkpointLocation", str(checkpoint))
        .trigger(processingTime=trigger)
        .start()
    )


def windowed_count(spark, name, checkpoint, rows_per_second=20, window="2 seconds", watermark="2 seconds", trigger="1 second"):
    """Stateful aggregation bounded by a watermark: state is evicted as the watermark passes each window."""
    from pyspark.sql import functions as F

    frame = spark.readStream.format("rate").option("rowsPerSecond", rows_per_second).load()
    return (
        frame.withWatermark("timestamp", watermark)
        .groupBy(F.window("timestamp", window), (F.col("value") % 3).alias("bucket"))
        .count()
        .writeStream.format("noop")
        .outputMode("append")
        .queryName(name)
        .option("checkpointLocation", str(checkpoint))
        .trigger(processingTime=trigger)
        .start()
    )


def dedupe_unbounded(spark, name, checkpoint, rows_per_second=20, trigger="1 second"):
    """dropDuplicates without a watermark: every distinct key stays in state forever."""
    frame = spark.readStream.format("rate").option("rowsPerSecond", rows_per_second).load()
    return (
        frame.selectExpr("value AS key", "timestamp")
        .dropDuplicates(["key"])
        .writeStream.format("noop")
        .queryName(name)
        .option("checkpointLocation", str(checkpoint))
        .trigger(processingTime=trigger)
        .start()
    )
