"""StreamDoctor listener for PySpark: appends every StreamingQueryProgress to the StreamDoctor progress table.

Runs on classic PySpark (Spark 3.4+; dedicated compute) and under Spark Connect (Spark 3.5+; Databricks
standard access mode and serverless), where the listener object may be pickled and run in another
process. So it is written to Connect's rules:

- picklable: only plain values travel (``__getstate__`` drops the session, any Py4J handle PySpark
  attached, and the lock and timer thread, which are made again in the process that runs the object);
  ``install`` ships its class by value, so the process that runs it needs nothing but pyspark;
- nothing from outside the object: every import is inside a method, constants are class attributes;
- it reaches Spark through the session ``install`` gave it (``_streamdoctor_spark``; never PySpark's own
  ``spark`` property, read-only on classic PySpark 3.5), else ``self.spark`` (set by PySpark under
  Connect), else the active session;
- callbacks only buffer the report (and flush when ``flush_rows`` are buffered); a daemon timer thread,
  running while rows are buffered or queries run, appends the buffer once its oldest row is
  ``flush_interval_s`` old; ``onQueryTerminated`` always flushes; one flush at a time (a lock);
- the end of a job: Spark delivers listener events asynchronously, so ``awaitTermination()`` can return
  before the last rows reach the listener. ``flush(timeout_s)`` waits for the terminated event of every
  query that has stopped, then writes: call it before ``spark.stop()`` and at the end of an availableNow
  or once job. ``install`` also registers an ``atexit`` hook that does the same when the script ends
  (before PySpark's JVM goes: on Unix the JVM exits on its stdin's EOF, after the Python process; on
  Windows PySpark's own ``atexit`` kill was registered earlier, so runs later);
- bounded: past ``max_rows`` buffered rows the oldest are dropped and counted (``dropped``);
- a failed write never reaches the stream: it is counted (``failed_writes``, ``last_error``), printed to
  stderr, the rows stay buffered, and the next try waits ``flush_interval_s``;
- it never creates the table: ``install`` checks that it exists with the expected columns (any order, other
  columns allowed) and TIMESTAMP (not TIMESTAMP_NTZ) ``event_time``/``ingested_at``; rows are written by name
  (``INSERT INTO table (columns) SELECT ...`` from a temporary view), so columns added later stay NULL and a
  table dropped later is a failed (retried, counted) write;
- Spark Connect 4.0 clients: PySpark's listener thread is not a daemon and Python joins it before ``atexit``
  hooks, so ``install`` also registers a ``threading`` exit hook (run before that join) that flushes and
  removes the listener.

Register it once per SparkSession, before starting the streams (``install`` is idempotent: called again for
the same session and table while its listener is registered, it returns that listener)::

    from streamdoctor_listener import install
    listener = install(spark, table="main.streamdoctor.streaming_progress")
    ...
    listener.flush()  # before spark.stop() / at the end of an availableNow job
    listener.remove()  # to stop it while the session goes on (it writes what is buffered, ends its timer)
"""

from pyspark.sql.streaming import StreamingQueryListener

__all__ = ["StreamDoctorListener", "ProgressTableError", "install"]


class ProgressTableError(RuntimeError):
    """The progress table is missing or does not have the listener's columns: run progress_table.sql first."""


class StreamDoctorListener(StreamingQueryListener):
    """Buffers progress reports and appends them to ``table`` in one write per flush."""

    # The table's columns (listener/progress_table.sql) as the write produces them, in order.
    COLUMNS = ("query_id", "run_id", "query_name", "batch_id", "event_time", "ingested_at", "progress_json")
    # Columns StreamDoctor reads with unix_millis/unix_micros: TIMESTAMP (LTZ), never TIMESTAMP_NTZ.
    TIMESTAMP_COLUMNS = ("event_time", "ingested_at")
    # Attributes that never travel with the object (session handles, lock, thread).
    _LOCAL = ("_sparkSession", "spark", "_streamdoctor_spark", "_lock", "_flush_lock", "_timer", "_wake")

    def __init__(self, table="main.streamdoctor.streaming_progress", flush_interval_s=10.0, flush_rows=200, max_rows=10000):
        self.table = str(table)
        self.flush_interval_s = float(flush_interval_s)
        self.flush_rows = max(1, int(flush_rows))
        self.max_rows = max(1, int(max_rows))
        # (query_id, run_id, query_name, batch_id, timestamp text, progress json), oldest first.
        self._buffer = []
        self._oldest_at = None  # wall-clock seconds when the oldest buffered row arrived
        self._retry_at = 0.0  # after a failed write, no new try before this
        self._running = set()  # run ids started and not yet terminated, as this listener heard
        self._removed = False  # remove() was called: nothing more is buffered, the timer ends
        self.written = 0
        self.dropped = 0
        self.failed_writes = 0
        self.last_error = None
        self._locals()

    def _locals(self):
        import threading

        self._lock = threading.RLock()  # the buffer and counters
        self._flush_lock = threading.Lock()  # one write at a time
        self._wake = threading.Event()
        self._timer = None

    # Pickling (Spark Connect ships the object): only our own plain state travels.
    def __getstate__(self):
        return {key: value for key, value in self.__dict__.items() if key not in self._LOCAL and not key.startswith("_jlistener")}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._locals()

    # Callbacks: never raise into Spark.
    def onQueryStarted(self, event):
        try:
            with self._lock:
                if self._removed:
                    return
                self._running.add(str(event.runId))
            self._ensure_timer()
        except Exception as error:  # noqa: BLE001 - the stream must not see our problems
            self._failed(error)

    def onQueryProgress(self, event):
        try:
            if self._removed:
                return
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
            self._flush_if_due(wait=False)
        except Exception as error:  # noqa: BLE001
            self._failed(error)

    def onQueryIdle(self, event):
        try:
            self._flush_if_due(wait=False)
        except Exception as error:  # noqa: BLE001
            self._failed(error)

    def onQueryTerminated(self, event):
        try:
            with self._lock:
                self._running.discard(str(event.runId))
            self._write_buffer(wait_s=self.FLUSH_TIMEOUT_S)
            self._wake.set()  # the timer re-checks whether it still has work
        except Exception as error:  # noqa: BLE001
            self._failed(error)

    FLUSH_TIMEOUT_S = 30.0

    # Buffer.
    @property
    def buffered(self):
        return len(self._buffer)

    def _add(self, row):
        import time

        with self._lock:
            if not self._buffer:
                self._oldest_at = time.time()
            self._buffer.append(row)
            excess = len(self._buffer) - self.max_rows
            if excess > 0:
                del self._buffer[:excess]
                self.dropped += excess
        self._ensure_timer()

    def _due_in(self):
        """Seconds until a flush is due (0: now), None when nothing is buffered."""
        import time

        with self._lock:
            if not self._buffer:
                return None
            now = time.time()
            if now < self._retry_at:
                return self._retry_at - now
            if len(self._buffer) >= self.flush_rows:
                return 0.0
            return max(0.0, self._oldest_at + self.flush_interval_s - now)

    def _flush_if_due(self, wait):
        due = self._due_in()
        if due is not None and due <= 0:
            return self._write_buffer(wait_s=self.FLUSH_TIMEOUT_S if wait else 0)
        return 0

    # The timer: a daemon thread in the process that runs the listener, alive while rows are buffered or queries run.
    def _ensure_timer(self):
        import threading

        with self._lock:
            if self._timer is not None:
                return
            self._timer = threading.Thread(target=self._tick, name="streamdoctor-listener-flush", daemon=True)
            self._timer.start()

    def _tick(self):
        try:
            while True:
                due = self._due_in()
                with self._lock:
                    if self._removed or (due is None and not self._running):
                        self._timer = None
                        return
                if due is not None and due <= 0:
                    self._write_buffer(wait_s=0)  # a flush already running: it writes these rows
                    due = self._due_in()
                self._wake.wait(1.0 if due is None else min(max(due, 0.05), 1.0))
                self._wake.clear()
        except Exception as error:  # noqa: BLE001 - the thread must not die silently
            with self._lock:
                self._timer = None
            self._failed(error)

    # The end of this listener.
    def remove(self, timeout_s=30.0):
        """Unregisters this listener from the session ``install`` gave it, writes what is buffered (waiting up to
        ``timeout_s`` for a write already running), and ends its timer thread and exit hook. Call it instead of
        ``spark.streams.removeListener(listener)``: removed that way, the listener never hears the queries it saw
        start terminate, so its timer would wake every second for the life of the process. Returns the rows written
        (0 when the write failed: the rows stay in ``buffered``, counted in ``failed_writes``)."""
        import atexit

        spark = self._session_if_any()
        if spark is not None:
            try:
                spark.streams.removeListener(self)
            except Exception as error:  # noqa: BLE001 - e.g. already removed, or the session stopped
                self._failed(error)
        with self._lock:
            self._removed = True
            self._running.clear()
        try:
            written = self._write_buffer(wait_s=max(0.05, float(timeout_s)))
        finally:
            self._wake.set()  # the timer sees it is removed and ends
            atexit.unregister(self._at_exit)
        return written

    # Writes.
    def flush(self, timeout_s=30.0):
        """Writes what is buffered now, first waiting (within ``timeout_s``) for the events Spark has still to
        deliver of queries that have stopped. Call it before ``spark.stop()`` and at the end of an availableNow
        or once job. Returns the rows written; 0 when there was nothing or the write failed (rows kept)."""
        import time

        deadline = time.time() + max(0.0, float(timeout_s))
        while time.time() < deadline:
            with self._lock:
                running = set(self._running)
            if not running:
                break
            try:
                active = {str(query.runId) for query in self._session().streams.active}
            except Exception:  # noqa: BLE001 - session gone: write what we have
                break
            if running <= active:
                break
            time.sleep(0.05)
        return self._write_buffer(wait_s=max(0.05, deadline - time.time()))

    def _write_buffer(self, wait_s):
        """One write of the buffer, never two at once: waits up to ``wait_s`` for a write already running."""
        import time

        if not (self._flush_lock.acquire(timeout=wait_s) if wait_s > 0 else self._flush_lock.acquire(blocking=False)):
            return 0
        try:
            with self._lock:
                if not self._buffer:
                    return 0
                rows = list(self._buffer)
                dropped_before = self.dropped
            try:
                self._write(rows)
            except Exception as error:  # noqa: BLE001 - a failed write must not stop the streams
                with self._lock:
                    self._retry_at = time.time() + self.flush_interval_s
                self._failed(error)
                return 0
            with self._lock:
                # Rows dropped meanwhile (past max_rows) came off the front, from the rows just written.
                del self._buffer[: max(0, len(rows) - (self.dropped - dropped_before))]
                self._oldest_at = time.time() if self._buffer else None
                self._retry_at = 0.0
                self.written += len(rows)
            return len(rows)
        finally:
            self._flush_lock.release()

    def _session(self):
        session = getattr(self, "_streamdoctor_spark", None)  # given by install()
        if session is None:
            session = getattr(self, "spark", None)  # set by PySpark under Connect (a property from 3.5)
        if session is None:
            from pyspark.sql import SparkSession

            session = SparkSession.getActiveSession() or SparkSession.builder.getOrCreate()
        return session

    def _write(self, rows):
        from pyspark.sql.types import LongType, StringType, StructField, StructType

        schema = StructType(
            [
                StructField("query_id", StringType(), False),
                StructField("run_id", StringType(), False),
                StructField("query_name", StringType(), True),
                StructField("batch_id", LongType(), True),
                StructField("event_ms", LongType(), True),
                StructField("progress_json", StringType(), False),
            ]
        )
        # event_time from epoch milliseconds parsed here, not to_timestamp(text): under the user's
        # spark.sql.timestampType=TIMESTAMP_NTZ, to_timestamp drops the trailing Z and the instant lands
        # shifted by the session time zone. timestamp_millis (SQL, Spark 3.1+) is always a TIMESTAMP (LTZ).
        rows = [(q, r, n, b, self._epoch_ms(text), j) for q, r, n, b, text, j in rows]
        spark = self._session()
        # By name, with an explicit column list (not insertInto, which matches by position): columns added to
        # the table later (ALTER TABLE ... ADD COLUMNS) are left NULL instead of failing every write.
        view = self._view_name()
        spark.createDataFrame(rows, schema).createOrReplaceTempView(view)
        try:
            spark.sql(
                f"INSERT INTO {self.table} ({', '.join(self.COLUMNS)}) "
                "SELECT query_id, run_id, query_name, batch_id, timestamp_millis(event_ms) AS event_time, "
                f"current_timestamp() AS ingested_at, progress_json FROM {view}"
            )  # never creates the table
        finally:
            try:
                spark.catalog.dropTempView(view)
            except Exception:  # noqa: BLE001 - the session went away: the view went with it
                pass

    def _view_name(self):
        """A temporary view name of this listener's own (several listeners may share a session)."""
        name = getattr(self, "_streamdoctor_view", None)
        if name is None:
            import uuid

            name = self._streamdoctor_view = f"streamdoctor_progress_{uuid.uuid4().hex}"
        return name

    @staticmethod
    def _epoch_ms(text):
        """StreamingQueryProgress.timestamp (ISO 8601, e.g. 2026-09-14T10:00:00.000Z) as epoch milliseconds; an
        offset is honoured, none means UTC; None when it is missing or cannot be parsed."""
        import re
        from datetime import datetime, timedelta, timezone

        if not isinstance(text, str):
            return None
        match = re.fullmatch(
            r"\s*(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?\s*",
            text,
        )
        if not match:
            return None
        year, month, day, hour, minute, second, fraction, zone = match.groups()
        try:
            offset = timedelta(0)
            if zone and zone not in ("Z", "z"):
                sign = -1 if zone[0] == "-" else 1
                digits = zone[1:].replace(":", "")
                offset = sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:4] or 0))
            moment = datetime(int(year), int(month), int(day), int(hour), int(minute), int(second or 0), tzinfo=timezone(offset))
        except (ValueError, OverflowError):
            return None
        delta = moment - datetime(1970, 1, 1, tzinfo=timezone.utc)
        return (delta.days * 86400 + delta.seconds) * 1000 + int((fraction or "0")[:3].ljust(3, "0"))

    def _failed(self, error):
        import sys

        with self._lock:
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

    # The end of the Python process.
    def _at_exit(self):
        import sys

        try:
            if not self._buffer and not self._running:
                return
            if not _session_usable(self._session_if_any()):
                if self._buffer:
                    print(
                        f"streamdoctor listener: {len(self._buffer)} progress rows not written to {self.table}: the "
                        "session was stopped first; call listener.flush() before spark.stop()",
                        file=sys.stderr,
                    )
                return
            self.flush(self.FLUSH_TIMEOUT_S)
        except Exception as error:  # noqa: BLE001 - never fail the interpreter's exit
            self._failed(error)

    def _at_thread_exit(self):
        """Spark Connect: run by threading's exit hooks, before Python joins non-daemon threads (PySpark's
        listener-bus thread): writes what is buffered, then removes the listener so that thread ends."""
        try:
            if self._removed or not _session_usable(self._session_if_any()):
                return
            self._at_exit()
            self.remove(self.FLUSH_TIMEOUT_S)
        except Exception as error:  # noqa: BLE001 - never fail the interpreter's exit
            self._failed(error)

    def _session_if_any(self):
        return getattr(self, "_streamdoctor_spark", None) or getattr(self, "spark", None)


def _session_usable(spark):
    if spark is None:
        return False
    if type(spark).__module__.startswith("pyspark.sql.connect"):
        return not getattr(spark, "is_stopped", False) and not getattr(getattr(spark, "_client", None), "is_closed", False)
    context = getattr(spark, "_sc", None)
    return context is not None and getattr(context, "_jsc", None) is not None


def check_table(spark, table):
    """Raises ProgressTableError unless ``table`` exists with the listener's columns (any order; other columns are
    fine, written NULL) and ``event_time`` and ``ingested_at`` are TIMESTAMP (with local time zone, not NTZ)."""
    hint = "run listener/progress_table.sql (with your catalog and schema) first"
    try:
        exists = spark.catalog.tableExists(table)
    except Exception as error:  # noqa: BLE001 - e.g. the catalog does not exist
        first = (str(error).strip().splitlines() or [type(error).__name__])[0]
        raise ProgressTableError(f"streamdoctor listener: progress table {table} cannot be found ({first[:300]}); {hint}") from None
    if not exists:
        raise ProgressTableError(f"streamdoctor listener: progress table {table} does not exist; {hint}")
    fields = {field.name.lower(): field.dataType for field in spark.table(table).schema.fields}
    columns = tuple(fields)
    missing = [name for name in StreamDoctorListener.COLUMNS if name not in fields]
    if missing:
        raise ProgressTableError(
            f"streamdoctor listener: progress table {table} has columns ({', '.join(columns)}), not "
            f"({', '.join(StreamDoctorListener.COLUMNS)}); {hint}"
        )
    wrong = [
        f"{name} is {fields[name].simpleString().upper()}"
        for name in StreamDoctorListener.TIMESTAMP_COLUMNS
        if type(fields[name]).__name__ != "TimestampType"  # TimestampNTZType is not: unix_millis/unix_micros refuse it
    ]
    if wrong:
        raise ProgressTableError(
            f"streamdoctor listener: progress table {table}: {', '.join(wrong)}, not TIMESTAMP (TIMESTAMP_LTZ), which "
            "StreamDoctor reads with unix_millis/unix_micros (the table was likely created under "
            "spark.sql.timestampType=TIMESTAMP_NTZ); re-create it with listener/progress_table.sql, which declares "
            "TIMESTAMP_LTZ"
        )


# Listeners install() registered in this process: {(id(session), table): (session, listener)}. The session is kept
# so that its id is not reused while the entry lives.
_INSTALLED = {}


def _still_registered(spark, listener):
    """False when ``listener`` is known to be no longer registered on ``spark`` (removed with remove() or with
    spark.streams.removeListener), else True (also when it cannot be told)."""
    if getattr(listener, "_removed", False):
        return False
    try:
        if type(spark).__module__.startswith("pyspark.sql.connect"):
            bus = getattr(getattr(spark.streams, "_sqlb", None), "_listener_bus", None)
            return True if bus is None else any(item is listener for item in bus)
        jlistener = getattr(listener, "_jlistenerobj", None)
        if jlistener is None:
            return False
        return any(jlistener.equals(item) for item in spark._jsparkSession.streams().listListeners())
    except Exception:  # noqa: BLE001 - cannot tell: assume it still is
        return True


def install(spark, table="main.streamdoctor.streaming_progress", **options):
    """Checks the table, registers a StreamDoctorListener on ``spark`` and returns it. Options: flush_interval_s,
    flush_rows, max_rows. Raises ProgressTableError when the table is missing, lacks the listener's columns or has
    TIMESTAMP_NTZ timestamps.

    Idempotent per session and table: called again (a notebook cell re-run) while the listener it returned is still
    registered on ``spark`` for ``table``, it returns that listener and registers nothing (the options of the
    first call stay), so rows are never written twice. After ``listener.remove()`` it installs a new one."""
    import atexit
    import sys

    check_table(spark, table)
    key = (id(spark), str(table))
    with _INSTALL_LOCK:
        entry = _INSTALLED.get(key)
        if entry is not None and entry[0] is spark and _still_registered(spark, entry[1]):
            return entry[1]
        _INSTALLED.pop(key, None)
        listener = StreamDoctorListener(table, **options)
        connect = type(spark).__module__.startswith("pyspark.sql.connect")
        if connect:
            # Spark Connect: a server that runs listeners itself unpickles this object in its own Python
            # worker; shipping the class by value means that worker does not need this package installed.
            from pyspark import cloudpickle

            cloudpickle.register_pickle_by_value(sys.modules[StreamDoctorListener.__module__])
        # Our own attribute: PySpark's `spark` is a read-only property on classic 3.5 (SPARK-48560).
        listener._streamdoctor_spark = spark
        spark.streams.addListener(listener)
        atexit.register(listener._at_exit)
        if connect:
            _register_connect_exit(listener)
        _INSTALLED[key] = (spark, listener)
    return listener


def _register_connect_exit(listener):
    """Spark Connect 4.0's client runs listeners on a thread that is not a daemon, and Python joins such threads
    before it runs atexit hooks: a script that ends without spark.stop() would never exit, and the atexit flush never
    run. threading._register_atexit hooks run before that join: flush, then remove the listener (removing the last
    listener ends PySpark's thread)."""
    import threading

    register = getattr(threading, "_register_atexit", None)
    if register is None:
        return
    try:
        register(listener._at_thread_exit)
    except Exception:  # noqa: BLE001 - e.g. the interpreter is already shutting down
        pass


_INSTALL_LOCK = __import__("threading").Lock()
