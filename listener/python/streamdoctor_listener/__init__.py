"""StreamDoctor listener for PySpark (Spark 3.4+, Databricks Runtime 11.3 LTS+).

Appends every StreamingQueryProgress event to the StreamDoctor progress table
(see progress_table.sql). The callback only queues the event; a background thread writes the
queue every few seconds in one append, as Databricks recommends (keep listener callbacks light,
never run Spark jobs inside them).

Usage, once per SparkSession, before starting the streams:

    from streamdoctor_listener import install
    install(spark, table="main.streamdoctor.streaming_progress")
"""

import sys
import threading
from collections import deque

from pyspark.sql import functions as F
from pyspark.sql.streaming import StreamingQueryListener
from pyspark.sql.types import LongType, StringType, StructField, StructType

_SCHEMA = StructType(
    [
        StructField("query_id", StringType(), False),
        StructField("run_id", StringType(), False),
        StructField("query_name", StringType(), True),
        StructField("batch_id", LongType(), True),
        StructField("event_time_text", StringType(), True),
        StructField("progress_json", StringType(), False),
    ]
)


class StreamDoctorListener(StreamingQueryListener):
    """Queues progress events and appends them to a Delta table from a background thread."""

    def __init__(self, spark, table, flush_interval_s=10.0, max_queued=50000):
        self._spark = spark
        self._table = table
        self._flush_interval_s = flush_interval_s
        # Bounded: if the table is unwritable for long, the oldest events are dropped, never the driver.
        self._queue = deque(maxlen=max_queued)
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="streamdoctor-listener", daemon=True)
        self._thread.start()

    # Callbacks: constant time, no Spark calls.
    def onQueryStarted(self, event):
        pass

    def onQueryProgress(self, event):
        progress = event.progress
        with self._lock:
            self._queue.append(
                (
                    str(progress.id),
                    str(progress.runId),
                    progress.name,
                    progress.batchId,
                    progress.timestamp,
                    progress.json,
                )
            )

    def onQueryIdle(self, event):
        pass

    def onQueryTerminated(self, event):
        pass

    def flush(self):
        """Writes everything queued in one append. Returns the number of rows written."""
        with self._lock:
            rows = list(self._queue)
            self._queue.clear()
        if not rows:
            return 0
        try:
            (
                self._spark.createDataFrame(rows, _SCHEMA)
                .select(
                    "query_id",
                    "run_id",
                    "query_name",
                    "batch_id",
                    F.to_timestamp("event_time_text").alias("event_time"),
                    F.current_timestamp().alias("ingested_at"),
                    "progress_json",
                )
                .write.mode("append")
                .saveAsTable(self._table)
            )
        except Exception as error:  # noqa: BLE001 - a failed write must not stop the streams
            with self._lock:
                # Put the rows back in front (still bounded) and try again next round.
                for row in reversed(rows):
                    self._queue.appendleft(row)
            print(f"streamdoctor listener: could not append to {self._table}: {error}", file=sys.stderr)
            return 0
        return len(rows)

    def stop(self):
        self._stopped.set()
        self._thread.join(timeout=self._flush_interval_s + 30)
        self.flush()

    def _run(self):
        while not self._stopped.wait(self._flush_interval_s):
            self.flush()


def install(spark, table="main.streamdoctor.streaming_progress", flush_interval_s=10.0):
    """Creates the listener, registers it on the session, and returns it (call .stop() on shutdown)."""
    listener = StreamDoctorListener(spark, table, flush_interval_s=flush_interval_s)
    spark.streams.addListener(listener)
    return listener
