// StreamDoctor listener for Scala (Spark 4.0, Scala 2.13; Databricks Runtime 17.x).
//
// Appends every StreamingQueryProgress to the StreamDoctor progress table (listener/progress_table.sql).
// Callbacks buffer the report; onQueryProgress / onQueryIdle append the buffer in one write once it is
// old or long enough, onQueryTerminated always does. No thread of its own; the buffer is bounded
// (oldest dropped and counted); a failed write is counted, printed and retried later, never thrown
// into the stream.
//
// Register it for every job without touching job code (cluster policy or Spark config):
//   spark.jars                                  /path/to/streamdoctor-listener_2.13-0.2.0.jar
//   spark.sql.streaming.streamingQueryListeners com.streamdoctor.StreamDoctorListener
//   spark.streamdoctor.table                    main.streamdoctor.streaming_progress
// or from code, before starting the streams:
//   com.streamdoctor.StreamDoctorListener.install(spark, "main.streamdoctor.streaming_progress")
package com.streamdoctor

import org.apache.spark.SparkConf
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.functions.{col, current_timestamp, to_timestamp}
import org.apache.spark.sql.streaming.StreamingQueryListener
import org.apache.spark.sql.streaming.StreamingQueryListener.{QueryIdleEvent, QueryProgressEvent, QueryStartedEvent, QueryTerminatedEvent}
import org.apache.spark.sql.types.{LongType, StringType, StructField, StructType}

class StreamDoctorListener(
    val table: String,
    val flushIntervalMs: Long,
    val flushRows: Int,
    val maxRows: Int
) extends StreamingQueryListener {

  /** The constructor `spark.sql.streaming.streamingQueryListeners` uses: settings from the Spark conf. */
  def this(conf: SparkConf) = this(
    conf.get(StreamDoctorListener.TableKey, StreamDoctorListener.DefaultTable),
    (conf.getDouble(StreamDoctorListener.FlushIntervalKey, 10.0) * 1000).toLong,
    conf.getInt(StreamDoctorListener.FlushRowsKey, 200),
    conf.getInt(StreamDoctorListener.MaxRowsKey, 10000)
  )

  /** No-argument form (spark.* Java system properties, else the defaults). */
  def this() = this(new SparkConf())

  require(flushRows >= 1 && maxRows >= 1, "flushRows and maxRows must be at least 1")

  private val schema = StructType(Seq(
    StructField("query_id", StringType, nullable = false),
    StructField("run_id", StringType, nullable = false),
    StructField("query_name", StringType, nullable = true),
    StructField("batch_id", LongType, nullable = true),
    StructField("event_time_text", StringType, nullable = true),
    StructField("progress_json", StringType, nullable = false)
  ))

  private val buffer = new java.util.ArrayDeque[Row]()
  private var oldestAtMs = 0L
  private var retryAtMs = 0L
  @volatile private var session: Option[SparkSession] = None
  @volatile var written = 0L
  @volatile var dropped = 0L
  @volatile var failedWrites = 0L
  @volatile var lastError: Option[String] = None

  /** Writes through this session instead of the thread's active (or the default) one. */
  def useSession(spark: SparkSession): this.type = { session = Option(spark); this }

  def buffered: Int = synchronized(buffer.size)

  override def onQueryStarted(event: QueryStartedEvent): Unit = ()

  override def onQueryProgress(event: QueryProgressEvent): Unit = guarded {
    val p = event.progress
    synchronized {
      if (buffer.isEmpty) oldestAtMs = System.currentTimeMillis()
      buffer.addLast(Row(p.id.toString, p.runId.toString, p.name, p.batchId, p.timestamp, p.json))
      while (buffer.size > maxRows) { buffer.pollFirst(); dropped += 1 }
    }
    flushIfDue(force = false)
  }

  override def onQueryIdle(event: QueryIdleEvent): Unit = guarded(flushIfDue(force = false))

  override def onQueryTerminated(event: QueryTerminatedEvent): Unit = guarded(flushIfDue(force = true))

  private def flushIfDue(force: Boolean): Unit = {
    val due = synchronized {
      val now = System.currentTimeMillis()
      !buffer.isEmpty && (force || (now >= retryAtMs && (now - oldestAtMs >= flushIntervalMs || buffer.size >= flushRows)))
    }
    if (due) flush()
  }

  /** Appends every buffered row in one write; returns the rows written (0 when the write failed: rows kept). */
  def flush(): Int = synchronized {
    if (buffer.isEmpty) return 0
    val rows = new java.util.ArrayList[Row](buffer)
    try {
      val spark = session.orElse(SparkSession.getActiveSession).orElse(SparkSession.getDefaultSession).getOrElse(
        throw new IllegalStateException("no SparkSession is active"))
      spark.createDataFrame(rows, schema)
        .select(
          col("query_id"), col("run_id"), col("query_name"), col("batch_id"),
          to_timestamp(col("event_time_text")).as("event_time"),
          current_timestamp().as("ingested_at"),
          col("progress_json"))
        .write.mode("append").saveAsTable(table)
    } catch {
      case error: Exception =>
        retryAtMs = System.currentTimeMillis() + flushIntervalMs
        failed(error)
        return 0
    }
    var left = rows.size
    while (left > 0) { buffer.pollFirst(); left -= 1 }
    oldestAtMs = System.currentTimeMillis()
    retryAtMs = 0L
    written += rows.size
    rows.size
  }

  private def guarded(body: => Unit): Unit =
    try body catch { case error: Exception => failed(error) }

  private def failed(error: Exception): Unit = {
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

  /** Registers a listener on `spark` that writes through it; returns the listener. */
  def install(spark: SparkSession, table: String = DefaultTable, flushIntervalSeconds: Double = 10.0): StreamDoctorListener = {
    val listener = new StreamDoctorListener(table, (flushIntervalSeconds * 1000).toLong, 200, 10000).useSession(spark)
    spark.streams.addListener(listener)
    listener
  }
}
