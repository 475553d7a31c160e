// StreamDoctor listener for Scala (Spark 3.x/4.x, Databricks Runtime 11.3 LTS+).
//
// Appends every StreamingQueryProgress event to the StreamDoctor progress table (progress_table.sql).
// The callback only queues the event; a daemon thread writes the queue every few seconds in one
// append, so the listener never runs Spark jobs inside a callback.
//
// Usage, before starting the streams:
//   val listener = com.streamdoctor.StreamDoctorListener.install(spark, "main.streamdoctor.streaming_progress")
package com.streamdoctor

import java.util.concurrent.{ConcurrentLinkedDeque, Executors, ThreadFactory, TimeUnit}
import java.util.concurrent.atomic.AtomicInteger

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.functions.{col, current_timestamp, to_timestamp}
import org.apache.spark.sql.streaming.StreamingQueryListener
import org.apache.spark.sql.streaming.StreamingQueryListener.{QueryProgressEvent, QueryStartedEvent, QueryTerminatedEvent}
import org.apache.spark.sql.types.{LongType, StringType, StructField, StructType}

class StreamDoctorListener(spark: SparkSession, table: String, flushIntervalSeconds: Long = 10L, maxQueued: Int = 50000)
    extends StreamingQueryListener {

  private val schema = StructType(Seq(
    StructField("query_id", StringType, nullable = false),
    StructField("run_id", StringType, nullable = false),
    StructField("query_name", StringType, nullable = true),
    StructField("batch_id", LongType, nullable = true),
    StructField("event_time_text", StringType, nullable = true),
    StructField("progress_json", StringType, nullable = false)
  ))

  private val queue = new ConcurrentLinkedDeque[Row]()
  private val queued = new AtomicInteger(0)

  private val scheduler = Executors.newSingleThreadScheduledExecutor(new ThreadFactory {
    override def newThread(runnable: Runnable): Thread = {
      val thread = new Thread(runnable, "streamdoctor-listener")
      thread.setDaemon(true)
      thread
    }
  })
  scheduler.scheduleWithFixedDelay(new Runnable { override def run(): Unit = flush() }, flushIntervalSeconds, flushIntervalSeconds, TimeUnit.SECONDS)

  override def onQueryStarted(event: QueryStartedEvent): Unit = ()

  override def onQueryProgress(event: QueryProgressEvent): Unit = {
    val p = event.progress
    queue.addLast(Row(p.id.toString, p.runId.toString, p.name, p.batchId, p.timestamp, p.json))
    // Bounded: when the table stays unwritable, drop the oldest events rather than the driver's memory.
    if (queued.incrementAndGet() > maxQueued && queue.pollFirst() != null) queued.decrementAndGet()
  }

  override def onQueryTerminated(event: QueryTerminatedEvent): Unit = ()

  /** Writes everything queued in one append; returns the number of rows written. */
  def flush(): Int = synchronized {
    val rows = new java.util.ArrayList[Row]()
    var row = queue.pollFirst()
    while (row != null) {
      rows.add(row)
      queued.decrementAndGet()
      row = queue.pollFirst()
    }
    if (rows.isEmpty) return 0
    try {
      spark.createDataFrame(rows, schema)
        .select(
          col("query_id"), col("run_id"), col("query_name"), col("batch_id"),
          to_timestamp(col("event_time_text")).as("event_time"),
          current_timestamp().as("ingested_at"),
          col("progress_json"))
        .write.mode("append").saveAsTable(table)
      rows.size
    } catch {
      case error: Exception =>
        // Put them back in front and try again next round.
        val it = rows.listIterator(rows.size)
        while (it.hasPrevious) { queue.addFirst(it.previous()); queued.incrementAndGet() }
        System.err.println(s"streamdoctor listener: could not append to $table: ${error.getMessage}")
        0
    }
  }

  def stop(): Unit = {
    scheduler.shutdown()
    scheduler.awaitTermination(flushIntervalSeconds + 30, TimeUnit.SECONDS)
    flush()
  }
}

object StreamDoctorListener {
  def install(spark: SparkSession, table: String = "main.streamdoctor.streaming_progress", flushIntervalSeconds: Long = 10L): StreamDoctorListener = {
    val listener = new StreamDoctorListener(spark, table, flushIntervalSeconds)
    spark.streams.addListener(listener)
    listener
  }
}
