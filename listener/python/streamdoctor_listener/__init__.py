"""StreamDoctor listener for PySpark: appends every StreamingQueryProgress to the StreamDoctor progress table.

Runs on classic PySpark (Spark 3.4+; dedicated compute) and under Spark Connect (Spark 3.5+; Databricks
standard access mode and serverless), where the listener object may be pickled and run in another
process. So it is written to Connect's rules:

- picklable: it holds only plain values (no lock, thread, socket or session; ``__getstate__`` drops any
  session or Py4J handle PySpark attached), and ``install`` ships its class by value, so the process that
  runs it needs nothing but pyspark;
- nothing from outside the object: every import is inside a method, constants are class attributes;
- it reaches Spark through ``self.spark`` (set by PySpark under Connect, by ``install`` on classic);
- no threads: callbacks buffer the report; ``onQueryProgress`` / ``onQueryIdle`` append the buffer in one
  write once it is ``flush_interval_s`` old or ``flush_rows`` long, ``onQueryTerminated`` always does;
- bounded: past ``max_rows`` buffered rows the oldest are dropped and counted (``dropped``);
- a failed write never reaches the stream: it is counted (``failed_writes``, ``last_error``), printed to
  stderr, the rows stay buffered, and the next try waits ``flush_interval_s``.

Register it once per SparkSession, before starting the streams::

    from streamdoctor_listener import install
    install(spark, table="main.streamdoctor.streaming_progress")
"""

from pyspark.sql.streaming import StreamingQueryListener

__all__ = ["StreamDoctorListener", "install"]


class StreamDoctorListener(StreamingQueryListener):
    """Buffers progress reports and appends them to ``table`` in one write per flush."""

    # The table's columns (listener/progress_table.sql) as the write produces them, in order.
    COLUMNS = ("query_id", "run_id", "query_name", "batch_id", "event_time", "ingested_at", "progress_json")

    def __init__(self, table="main.streamdoctor.streaming_progress", flush_interval_s=10.0, flush_rows=200, max_rows=10000):
        self.table = str(table)
        self.flush_interval_s = float(flush_interval_s)
        self.flush_rows = max(1, int(flush_rows))
        self.max_rows = max(1, int(max_rows))
        # (query_id, run_id, query_name, batch_id, timestamp text, progress json), oldest first.
        self._buffer = []
        self._oldest_at = None  # wall-clock seconds when the oldest buffered row arrived
        self._retry_at = 0.0  # after a failed write, no new try before this
        self.written = 0
        self.dropped = 0
        self.failed_writes = 0
        self.last_error = None

    # Pickling (Spark Connect ships the object): only our own plain state travels.
    def __getstate__(self):
        return {key: value for key, value in self.__dict__.items() if key not in ("_sparkSession", "spark") and not key.startswith("_jlistener")}

    def __setstate__(self, state):
        self.__dict__.update(state)

    # Callbacks: never raise into Spark.
    def onQueryStarted(self, event):
        pass

    def onQueryProgress(self, event):
        try:
            progress = event.progress
            self._add(
                (
                    str(progress.id),
                    str(progress.runId),
                    progress.name,
                    int(progress.batchId),
                    progress.timestamp,
                    progress.json,
                )
            )
            self._flush_if_due(force=False)
        except Exception as error:  # noqa: BLE001 - the stream must not see our problems
            self._failed(error)

    def onQueryIdle(self, event):
        try:
            self._flush_if_due(force=False)
        except Exception as error:  # noqa: BLE001
            self._failed(error)

    def onQueryTerminated(self, event):
        try:
            self._flush_if_due(force=True)
        except Exception as error:  # noqa: BLE001
            self._failed(error)

    # Buffer.
    @property
    def buffered(self):
        return len(self._buffer)

    def _add(self, row):
        import time

        if not self._buffer:
            self._oldest_at = time.time()
        self._buffer.append(row)
        excess = len(self._buffer) - self.max_rows
        if excess > 0:
            del self._buffer[:excess]
            self.dropped += excess

    def _flush_if_due(self, force):
        import time

        if not self._buffer:
            return 0
        now = time.time()
        if not force and now < self._retry_at:
            return 0
        old = self._oldest_at is not None and now - self._oldest_at >= self.flush_interval_s
        if force or old or len(self._buffer) >= self.flush_rows:
            return self.flush()
        return 0

    def flush(self):
        """Appends every buffered row in one write. Returns the rows written; 0 when the write failed (rows kept)."""
        import time

        if not self._buffer:
            return 0
        rows = list(self._buffer)
        try:
            self._write(rows)
        except Exception as error:  # noqa: BLE001 - a failed write must not stop the streams
            self._retry_at = time.time() + self.flush_interval_s
            self._failed(error)
            return 0
        del self._buffer[: len(rows)]
        self._oldest_at = time.time() if self._buffer else None
        self._retry_at = 0.0
        self.written += len(rows)
        return len(rows)

    def _session(self):
        session = getattr(self, "spark", None)  # a property from Spark 3.5; a plain attribute set by install() on 3.4
        if session is None:
            from pyspark.sql import SparkSession

            session = SparkSession.getActiveSession() or SparkSession.builder.getOrCreate()
        return session

    def _write(self, rows):
        from pyspark.sql import functions as F
        from pyspark.sql.types import LongType, StringType, StructField, StructType

        schema = StructType(
            [
                StructField("query_id", StringType(), False),
                StructField("run_id", StringType(), False),
                StructField("query_name", StringType(), True),
                StructField("batch_id", LongType(), True),
                StructField("event_time_text", StringType(), True),
                StructField("progress_json", StringType(), False),
            ]
        )
        (
            self._session()
            .createDataFrame(rows, schema)
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
            .saveAsTable(self.table)
        )

    def _failed(self, error):
        import sys

        self.failed_writes += 1
        self.last_error = f"{type(error).__name__}: {error}"[:2000]
        try:
            first_line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            print(
                f"streamdoctor listener: could not append {len(self._buffer)} progress rows to {self.table} "
                f"(kept, retried in {self.flush_interval_s:g} s; {self.dropped} dropped so far): {first_line}",
                file=sys.stderr,
            )
        except Exception:  # noqa: BLE001 - stderr closed: nothing more to do
            pass


def install(spark, table="main.streamdoctor.streaming_progress", **options):
    """Registers a StreamDoctorListener on ``spark`` and returns it. Options: flush_interval_s, flush_rows, max_rows."""
    import sys

    listener = StreamDoctorListener(table, **options)
    if type(spark).__module__.startswith("pyspark.sql.connect"):
        # Spark Connect: a server that runs listeners itself unpickles this object in its own Python
        # worker; shipping the class by value means that worker does not need this package installed.
        from pyspark import cloudpickle

        cloudpickle.register_pickle_by_value(sys.modules[StreamDoctorListener.__module__])
    else:
        # Classic PySpark never pickles the listener; give it the session it was installed on.
        listener.spark = spark
    spark.streams.addListener(listener)
    return listener
