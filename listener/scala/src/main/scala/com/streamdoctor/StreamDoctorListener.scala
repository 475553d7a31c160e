// StreamDoctor listener for Scala (Spark 4.0, Scala 2.13; Databricks Runtime 17.x).
//
// Appends every StreamingQueryProgress to the StreamDoctor progress table (listener/progress_table.sql).
// Callbacks buffer the report (and flush at flushRows); a daemon timer thread, alive while rows are
// buffered or queries run, appends the buffer once its oldest row is flushIntervalSeconds old;
// onQueryTerminated always flushes; one write at a time. The buffer is bounded (oldest dropped and
// counted); a failed write is counted, printed and retried later, never thrown into the stream (no Throwable
// leaves a callback; a bad setting is replaced by its default, never fails the session). Rows are
// written by name (INSERT INTO t (columns) SELECT ...: columns added to the table later are fine); the
// listener never creates the table (install() checks it exists with the
// expected columns).
// Writes run as the listener's own jobs (job group streamdoctor-listener), never in the job group of the
// query on whose thread the timer was made; event_time is the progress timestamp's instant whatever the
// session's spark.sql.timestampType (timestamp_millis of the parsed text, not to_timestamp).
//
// The end of a job: listener events are delivered asynchronously, so awaitTermination() can return
// before the last rows reach the listener. flush(timeoutMs) waits for the terminated events of stopped
// queries, then writes: call it before spark.stop(). A JVM shutdown hook (Hadoop's
// ShutdownHookManager, above the priority at which Spark stops the SparkContext) does the same when the
// JVM exits without spark.stop(); after spark.stop() nothing can be written.
// To stop it while the session goes on, call remove() (not spark.streams.removeListener, after which its
// timer would outlive it: it never hears the queries it saw start terminate).
//
// Register it for every job without touching job code (cluster policy or Spark config):
//   spark.jars                                  /path/to/streamdoctor-listener_2.13-0.3.0.jar
//   spark.sql.streaming.streamingQueryListeners com.streamdoctor.StreamDoctorListener
//   spark.streamdoctor.table                    main.streamdoctor.streaming_progress
// or from code, before starting the streams:
//   com.streamdoctor.StreamDoctorListener.install(spark, "main.streamdoctor.streaming_progress")
package com.streamdoctor

import org.apache.spark.SparkConf
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.functions.{col, current_timestamp, timestamp_millis}
import org.apache.spark.sql.streaming.StreamingQueryListener
import org.apache.spark.sql.streaming.StreamingQueryListener.{QueryIdleEvent, QueryProgressEvent, QueryStartedEvent, QueryTerminatedEvent}
import org.apache.spark.sql.types.{LongType, StringType, StructField, StructType}

class StreamDoctorListener private (settings: StreamDoctorListener.Settings) extends StreamingQueryListener {

  /**
   * Values out of range are clamped (flushRows and maxRows to at least 1, the interval to 0 ms .. 7 days),
   * never refused: Spark builds the listener for every session's StreamingQueryManager, and a constructor
   * that throws stops every streaming query from starting.
   */
  def this(table: String, flushIntervalMs: Long, flushRows: Int, maxRows: Int) =
    this(StreamDoctorListener.Settings.clamped(table, flushIntervalMs, flushRows, maxRows))

  /**
   * The constructor `spark.sql.streaming.streamingQueryListeners` uses: settings from the Spark conf, read
   * leniently (flushIntervalSeconds as 10, 2.5, 10s, 500ms or 1m); a bad value is replaced by its default
   * with one line on stderr. Never throws.
   */
  def this(conf: SparkConf) = this(StreamDoctorListener.Settings.fromConf(conf))

  /** No-argument form (spark.* Java system properties, else the defaults). */
  def this() = this(StreamDoctorListener.Settings.fromSystemProperties())

  val table: String = settings.table
  val flushIntervalMs: Long = settings.flushIntervalMs
  val flushRows: Int = settings.flushRows
  val maxRows: Int = settings.maxRows

  private val schema = StructType(Seq(
    StructField("query_id", StringType, nullable = false),
    StructField("run_id", StringType, nullable = false),
    StructField("query_name", StringType, nullable = true),
    StructField("batch_id", LongType, nullable = true),
    StructField("event_ms", LongType, nullable = true), // StreamingQueryProgress.timestamp in epoch ms
    StructField("progress_json", StringType, nullable = false)
  ))

  private val buffer = new java.util.ArrayDeque[Row]()
  private val running = new java.util.HashSet[String]() // run ids started, not yet terminated
  private val writeLock = new java.util.concurrent.locks.ReentrantLock()
  private var oldestAtMs = 0L
  private var retryAtMs = 0L
  private var timer: Option[java.util.concurrent.ScheduledExecutorService] = None
  @volatile private var session: Option[SparkSession] = None
  /** remove() was called: nothing more is buffered, no timer starts again. */
  @volatile private var removed = false
  @volatile var written = 0L
  @volatile var dropped = 0L
  @volatile var failedWrites = 0L
  @volatile var lastError: Option[String] = None
  /** Why the listener disabled itself at construction (it then does nothing); None when it works. */
  @volatile var disabledReason: Option[String] = None
  def disabled: Boolean = disabledReason.isDefined

  /** Writes through this session instead of the thread's active (or the default) one. */
  def useSession(spark: SparkSession): this.type = { session = Option(spark); this }

  def buffered: Int = synchronized(buffer.size)

  // Never throw from the constructor (see above): on any failure the listener disables itself.
  try {
    if (settings.failure.isDefined) throw settings.failure.get
    StreamDoctorListener.flushAtJvmExit(this)
  } catch {
    case error: Throwable =>
      removed = true
      disabledReason = Some(s"${error.getClass.getSimpleName}: ${Option(error.getMessage).getOrElse("")}".take(2000))
      System.err.println(s"streamdoctor listener: disabled, could not start (${disabledReason.get.linesIterator.nextOption().getOrElse("")}); no progress rows will be written")
      if (error.isInstanceOf[InterruptedException]) Thread.currentThread().interrupt()
  }

  override def onQueryStarted(event: QueryStartedEvent): Unit = guarded {
    if (!removed) {
      synchronized { running.add(event.runId.toString) }
      ensureTimer()
    }
  }

  override def onQueryProgress(event: QueryProgressEvent): Unit = guarded {
    if (!removed) {
      val p = event.progress
      synchronized {
        if (buffer.isEmpty) oldestAtMs = System.currentTimeMillis()
        buffer.addLast(Row(p.id.toString, p.runId.toString, p.name, p.batchId, StreamDoctorListener.epochMillis(p.timestamp), p.json))
        while (buffer.size > maxRows) { buffer.pollFirst(); dropped += 1 }
      }
      ensureTimer()
      flushIfDue()
    }
  }

  override def onQueryIdle(event: QueryIdleEvent): Unit = guarded(flushIfDue())

  override def onQueryTerminated(event: QueryTerminatedEvent): Unit = guarded {
    synchronized { running.remove(event.runId.toString) }
    writeBuffer(StreamDoctorListener.FlushTimeoutMs)
  }

  /** Milliseconds until a flush is due (0: now); -1 when nothing is buffered. */
  private def dueInMs(): Long = synchronized {
    if (buffer.isEmpty) -1L
    else {
      val now = System.currentTimeMillis()
      if (now < retryAtMs) retryAtMs - now
      else if (buffer.size >= flushRows) 0L
      else math.max(0L, oldestAtMs + flushIntervalMs - now)
    }
  }

  private def flushIfDue(): Unit = if (dueInMs() == 0L) writeBuffer(0L)

  // The timer: one daemon thread, alive while rows are buffered or queries run.
  private def ensureTimer(): Unit = synchronized {
    // A timer whose thread died (a tick that failed) is replaced by the next callback.
    if (timer.exists(executor => executor.isShutdown)) timer = None
    if (timer.isEmpty && !removed) {
      val executor = java.util.concurrent.Executors.newSingleThreadScheduledExecutor { (task: Runnable) =>
        val thread = new Thread(task, "streamdoctor-listener-flush")
        thread.setDaemon(true)
        thread
      }
      val periodMs = math.max(50L, math.min(1000L, flushIntervalMs / 4))
      executor.scheduleWithFixedDelay(() => runTick(executor), periodMs, periodMs, java.util.concurrent.TimeUnit.MILLISECONDS)
      timer = Some(executor)
    }
  }

  /**
   * One tick; never lets a Throwable out (a task that throws is silently never run again by its executor). A
   * tick that fails ends its timer (timer back to None) so the next callback starts a new one.
   */
  private def runTick(executor: java.util.concurrent.ScheduledExecutorService): Unit =
    try tick(executor)
    catch {
      case error: Throwable =>
        try {
          synchronized { if (timer.contains(executor)) timer = None }
          executor.shutdown()
          failed(error)
        } catch { case _: Throwable => () }
        if (error.isInstanceOf[InterruptedException]) Thread.currentThread().interrupt()
    }

  private def tick(executor: java.util.concurrent.ScheduledExecutorService): Unit = {
    flushIfDue()
    synchronized {
      if (buffer.isEmpty && running.isEmpty && timer.contains(executor)) { timer = None; executor.shutdown() }
    }
  }

  /**
   * Writes what is buffered now, first waiting (within `timeoutMs`) for the events Spark has still to
   * deliver of queries that have stopped. Call it before spark.stop() and at the end of an availableNow or
   * once job. Returns the rows written (0 when there was nothing or the write failed: rows kept).
   */
  def flush(timeoutMs: Long): Int = {
    val deadline = System.currentTimeMillis() + math.max(0L, timeoutMs)
    var waiting = true
    while (waiting && System.currentTimeMillis() < deadline) {
      val pending = synchronized(new java.util.HashSet[String](running))
      if (pending.isEmpty) waiting = false
      else {
        try {
          currentSession().streams.active.foreach(q => pending.remove(q.runId.toString))
          if (pending.isEmpty) waiting = false else Thread.sleep(50)
        } catch { case _: Exception => waiting = false }
      }
    }
    writeBuffer(math.max(50L, deadline - System.currentTimeMillis()))
  }

  /** flush(30 s). */
  def flush(): Int = flush(StreamDoctorListener.FlushTimeoutMs)

  /**
   * Unregisters this listener from its session, writes what is buffered (waiting up to `timeoutMs` for a
   * write already running) and ends its timer thread. Call it instead of spark.streams.removeListener:
   * removed that way, the listener never hears the queries it saw start terminate, so its timer runs for the
   * life of the JVM. Returns the rows written (0 when the write failed: rows kept, counted in failedWrites).
   */
  def remove(timeoutMs: Long): Int = {
    try currentSession().streams.removeListener(this)
    catch { case error: Exception => failed(error) }
    val executor = synchronized {
      removed = true
      running.clear()
      val current = timer
      timer = None
      current
    }
    try writeBuffer(math.max(50L, timeoutMs))
    finally executor.foreach(_.shutdown())
  }

  /** remove(30 s). */
  def remove(): Int = remove(StreamDoctorListener.FlushTimeoutMs)

  private def currentSession(): SparkSession =
    session.orElse(SparkSession.getActiveSession).orElse(SparkSession.getDefaultSession).getOrElse(
      throw new IllegalStateException("no SparkSession is active"))

  /** One write of the buffer, never two at once: waits up to `waitMs` for a write already running. */
  private def writeBuffer(waitMs: Long): Int = {
    val locked = if (waitMs > 0) writeLock.tryLock(waitMs, java.util.concurrent.TimeUnit.MILLISECONDS) else writeLock.tryLock()
    if (!locked) return 0
    try {
      val (rows, droppedBefore) = synchronized((new java.util.ArrayList[Row](buffer), dropped))
      if (rows.isEmpty) return 0
      try {
        val spark = currentSession()
        detached(spark, s"${StreamDoctorListener.JobDescription} (${rows.size} rows to $table)") {
          val view = s"streamdoctor_rows_${java.util.UUID.randomUUID().toString.replace("-", "")}"
          spark.createDataFrame(rows, schema)
            .select(
              col("query_id"), col("run_id"), col("query_name"), col("batch_id"),
              // Not to_timestamp(text): under spark.sql.timestampType=TIMESTAMP_NTZ it drops the Z and the
              // instant lands shifted by the session time zone; timestamp_millis is always a TIMESTAMP (LTZ).
              timestamp_millis(col("event_ms")).as("event_time"),
              current_timestamp().as("ingested_at"),
              col("progress_json"))
            .createOrReplaceTempView(view)
          try {
            // By name, with the column list: columns added to the table later (nullable, or with a default)
            // are filled by Spark instead of failing every write. Never creates the table.
            val columns = StreamDoctorListener.Columns.map(c => s"`$c`").mkString(", ")
            spark.sql(s"INSERT INTO $table ($columns) SELECT $columns FROM $view")
          } finally spark.catalog.dropTempView(view)
        }
      } catch {
        case error if StreamDoctorListener.Recoverable(error) =>
          synchronized { retryAtMs = System.currentTimeMillis() + flushIntervalMs }
          failed(error)
          return 0
      }
      synchronized {
        // Rows dropped meanwhile (past maxRows) came off the front, from the rows just written.
        var left = rows.size - (dropped - droppedBefore)
        while (left > 0) { buffer.pollFirst(); left -= 1 }
        oldestAtMs = System.currentTimeMillis()
        retryAtMs = 0L
        written += rows.size
      }
      rows.size
    } finally writeLock.unlock()
  }

  /**
   * Runs `body` (a write) as the listener's own job, detached from any query, then restores the thread's
   * properties. The timer thread is made inside onQueryStarted, on the query's thread, and so inherits its
   * job group (the runId), description, tags and streaming ids: its writes showed as that query's jobs and
   * stopping that query cancelled a write in progress. flush() may run on a user's thread: restored after.
   */
  private def detached[T](spark: SparkSession, description: String)(body: => T): T = {
    val context = spark.sparkContext
    val saved = StreamDoctorListener.QueryThreadProperties.map(key => key -> context.getLocalProperty(key))
    try {
      StreamDoctorListener.QueryThreadProperties.foreach(key => context.setLocalProperty(key, null))
      context.setJobGroup(StreamDoctorListener.JobGroupId, description, interruptOnCancel = false)
      body
    } finally saved.foreach { case (key, value) => context.setLocalProperty(key, value) } // null: removed
  }

  private[streamdoctor] def atJvmExit(): Unit = guarded {
    if (buffered > 0 || synchronized(!running.isEmpty)) flush(StreamDoctorListener.ExitFlushTimeoutMs)
  }

  /** A callback's body: no Throwable ever leaves it (one escaping the listener bus stops the SparkContext). */
  private def guarded(body: => Unit): Unit =
    try body
    catch {
      case error: Throwable =>
        try failed(error) catch { case _: Throwable => () }
        if (error.isInstanceOf[InterruptedException]) Thread.currentThread().interrupt()
    }

  private def failed(error: Throwable): Unit = {
    failedWrites += 1
    val text = s"${error.getClass.getSimpleName}: ${Option(error.getMessage).getOrElse("")}"
    lastError = Some(text.take(2000))
    System.err.println(
      s"streamdoctor listener: could not append ${buffered} progress rows to $table " +
        s"(kept, retried in ${flushIntervalMs / 1000.0} s; $dropped dropped so far): ${text.linesIterator.nextOption().getOrElse("")}")
  }
}

object StreamDoctorListener {
  val TableKey = "spark.streamdoctor.table"
  val FlushIntervalKey = "spark.streamdoctor.flushIntervalSeconds"
  val FlushRowsKey = "spark.streamdoctor.flushRows"
  val MaxRowsKey = "spark.streamdoctor.maxRows"
  val DefaultTable = "main.streamdoctor.streaming_progress"

  /** The job group and description of the listener's writes (never a query's, whatever thread writes). */
  val JobGroupId = "streamdoctor-listener"
  val JobDescription = "StreamDoctor listener: append progress"
  // Local properties a query's thread sets (and threads made on it inherit), cleared for each write: job
  // group, description, interrupt on cancel, job tags, call site, scheduler pool, streaming query ids.
  private val QueryThreadProperties: Seq[String] = Seq(
    "spark.jobGroup.id", "spark.job.description", "spark.job.interruptOnCancel", "spark.job.tags",
    "callSite.short", "callSite.long", "spark.scheduler.pool",
    "sql.streaming.queryId", "sql.streaming.runId", "streaming.sql.batchId", "__is_continuous_processing")

  /**
   * StreamingQueryProgress.timestamp (ISO 8601, like 2026-09-14T10:00:00.000Z) as epoch milliseconds; an offset
   * is honoured, none means UTC; null when missing or unparsable.
   */
  def epochMillis(text: String): java.lang.Long =
    Option(text).map(_.trim).flatMap { t =>
      scala.util.Try(java.time.Instant.parse(t))
        .orElse(scala.util.Try(java.time.OffsetDateTime.parse(t).toInstant))
        .orElse(scala.util.Try(java.time.LocalDateTime.parse(t).toInstant(java.time.ZoneOffset.UTC)))
        .flatMap(instant => scala.util.Try(java.lang.Long.valueOf(instant.toEpochMilli)))
        .toOption
    }.orNull

  val Columns: Seq[String] = Seq("query_id", "run_id", "query_name", "batch_id", "event_time", "ingested_at", "progress_json")
  val FlushTimeoutMs = 30000L
  // Hadoop's shutdown hooks each get 30 s by default (hadoop.service.shutdown.timeout).
  val ExitFlushTimeoutMs = 20000L
  // Spark stops the SparkContext from its own hook, registered with Hadoop's ShutdownHookManager at
  // FileSystem.SHUTDOWN_HOOK_PRIORITY + 30 (40); higher priorities run first.
  val ShutdownHookPriority = 60

  /** Errors a write may fail with and the listener survives (rows kept, retried): NonFatal, out of memory, linkage. */
  private[streamdoctor] object Recoverable {
    def apply(error: Throwable): Boolean = error match {
      case scala.util.control.NonFatal(_) | _: OutOfMemoryError | _: LinkageError => true
      case _ => false
    }
  }

  /** The listener's settings; `failure`: setup could not read them (the listener then disables itself). */
  private[streamdoctor] final case class Settings(table: String, flushIntervalMs: Long, flushRows: Int, maxRows: Int, failure: Option[Throwable] = None)

  private[streamdoctor] object Settings {
    val DefaultIntervalMs = 10000L
    val DefaultFlushRows = 200
    val DefaultMaxRows = 10000
    val MaxIntervalMs: Long = 7L * 24 * 3600 * 1000

    def clamped(table: String, flushIntervalMs: Long, flushRows: Int, maxRows: Int): Settings =
      Settings(Option(table).getOrElse(DefaultTable), math.min(MaxIntervalMs, math.max(0L, flushIntervalMs)), math.max(1, flushRows), math.max(1, maxRows))

    def fromSystemProperties(): Settings =
      try fromConf(new SparkConf())
      catch { case error: Throwable => Settings(DefaultTable, DefaultIntervalMs, DefaultFlushRows, DefaultMaxRows, Some(error)) }

    def fromConf(conf: SparkConf): Settings =
      try {
        val table = Option(conf.get(TableKey, DefaultTable)).map(_.trim).filter(_.nonEmpty).getOrElse {
          warn(TableKey, "(empty)", DefaultTable); DefaultTable
        }
        Settings(
          table,
          setting(conf, FlushIntervalKey, DefaultIntervalMs, s"${DefaultIntervalMs / 1000} s", parseSeconds, 0L, MaxIntervalMs),
          setting(conf, FlushRowsKey, DefaultFlushRows.toLong, DefaultFlushRows.toString, parseCount, 1L, Int.MaxValue.toLong).toInt,
          setting(conf, MaxRowsKey, DefaultMaxRows.toLong, DefaultMaxRows.toString, parseCount, 1L, Int.MaxValue.toLong).toInt)
      } catch {
        case error: Throwable => Settings(DefaultTable, DefaultIntervalMs, DefaultFlushRows, DefaultMaxRows, Some(error))
      }

    private def setting(conf: SparkConf, key: String, default: Long, shown: String, parse: String => Option[Long], min: Long, max: Long): Long =
      conf.getOption(key) match {
        case None => default
        case Some(text) =>
          parse(text.trim) match {
            case None => warn(key, text, s"the default $shown"); default
            case Some(value) if value < min || value > max =>
              val used = if (value < min) min else max
              warn(key, text, if (key == FlushIntervalKey) s"${used / 1000.0} s (the nearest allowed)" else s"$used (the nearest allowed)")
              used
            case Some(value) => value
          }
      }

    private def warn(key: String, text: String, used: String): Unit =
      System.err.println(s"streamdoctor listener: bad setting $key=${text.take(100)}; using $used")

    private val Duration = """(?i)^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hours?)?$""".r

    /** Seconds (10, 2.5) or a duration (10s, 500ms, 1m, 1h) in milliseconds. */
    private[streamdoctor] def parseSeconds(text: String): Option[Long] = text match {
      case Duration(number, unit) =>
        val factor = Option(unit).map(_.toLowerCase(java.util.Locale.ROOT)) match {
          case None => 1000.0
          case Some(u) if u.startsWith("ms") || u.startsWith("milli") => 1.0
          case Some(u) if u.startsWith("s") => 1000.0
          case Some(u) if u.startsWith("m") => 60000.0
          case _ => 3600000.0
        }
        scala.util.Try(java.lang.Double.parseDouble(number) * factor).toOption
          .filter(v => !v.isNaN).map(v => math.max(Long.MinValue / 2, math.min(Long.MaxValue / 2, math.round(v))))
      case _ => None
    }

    /** A whole number of rows (200, 1e3 and 200.0 read as whole numbers; 2.5 is refused). */
    private[streamdoctor] def parseCount(text: String): Option[Long] =
      scala.util.Try(java.lang.Long.parseLong(text.replace("_", ""))).toOption.orElse(
        scala.util.Try(new java.math.BigDecimal(text)).toOption.filter(d => d.stripTrailingZeros().scale() <= 0)
          .map(d => if (d.compareTo(java.math.BigDecimal.valueOf(Long.MaxValue)) > 0) Long.MaxValue
                    else if (d.compareTo(java.math.BigDecimal.valueOf(Long.MinValue)) < 0) Long.MinValue
                    else d.longValue()))
  }

  private val listeners = java.util.Collections.newSetFromMap(new java.util.WeakHashMap[StreamDoctorListener, java.lang.Boolean]())
  private lazy val hook: Unit =
    org.apache.hadoop.util.ShutdownHookManager.get().addShutdownHook(
      () => listeners.synchronized(new java.util.ArrayList[StreamDoctorListener](listeners)).forEach(_.atJvmExit()),
      ShutdownHookPriority)

  private def flushAtJvmExit(listener: StreamDoctorListener): Unit = {
    try { hook } catch { case error: Throwable => System.err.println(s"streamdoctor listener: no JVM exit flush ($error); call flush() before the job ends") }
    listeners.synchronized(listeners.add(listener))
  }

  /**
   * Throws IllegalArgumentException (one line: run progress_table.sql first) unless `table` exists with
   * the listener's columns in order.
   */
  def checkTable(spark: SparkSession, table: String): Unit = {
    val hint = "run listener/progress_table.sql (with your catalog and schema) first"
    val exists =
      try spark.catalog.tableExists(table)
      catch { case error: Exception =>
        throw new IllegalArgumentException(s"streamdoctor listener: progress table $table cannot be found (${Option(error.getMessage).getOrElse("").linesIterator.nextOption().getOrElse("").take(300)}); $hint")
      }
    if (!exists) throw new IllegalArgumentException(s"streamdoctor listener: progress table $table does not exist; $hint")
    val columns = spark.table(table).columns.toSeq.map(_.toLowerCase(java.util.Locale.ROOT))
    if (columns != Columns)
      throw new IllegalArgumentException(s"streamdoctor listener: progress table $table has columns (${columns.mkString(", ")}), not (${Columns.mkString(", ")}); $hint")
  }

  /** Checks the table, registers a listener on `spark` that writes through it; returns the listener. */
  def install(spark: SparkSession, table: String = DefaultTable, flushIntervalSeconds: Double = 10.0): StreamDoctorListener = {
    checkTable(spark, table)
    val listener = new StreamDoctorListener(table, (flushIntervalSeconds * 1000).toLong, 200, 10000).useSession(spark)
    spark.streams.addListener(listener)
    listener
  }
}
