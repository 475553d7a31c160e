// Signatures of the Spark SQL API the Scala listener uses, as Spark declares them (3.x/4.x), so the
// listener can be type-checked without Spark. Bodies are placeholders; only the types matter.
package org.apache.spark.sql {
  import org.apache.spark.sql.types.StructType
  import org.apache.spark.sql.streaming.StreamingQueryManager

  trait Row
  object Row { def apply(values: Any*): Row = new Row {} }

  class Column { def as(alias: String): Column = this }

  class DataFrameWriter[T] {
    def mode(saveMode: String): DataFrameWriter[T] = this
    def saveAsTable(tableName: String): Unit = ()
  }

  class Dataset[T] {
    def select(cols: Column*): Dataset[Row] = new Dataset[Row]
    def write: DataFrameWriter[T] = new DataFrameWriter[T]
  }

  class SparkSession {
    def createDataFrame(rows: java.util.List[Row], schema: StructType): Dataset[Row] = new Dataset[Row]
    def streams: StreamingQueryManager = new StreamingQueryManager
  }

  object functions {
    def col(colName: String): Column = new Column
    def current_timestamp(): Column = new Column
    def to_timestamp(s: Column): Column = new Column
  }
}

package org.apache.spark.sql.types {
  abstract class DataType
  object StringType extends DataType
  object LongType extends DataType
  case class StructField(name: String, dataType: DataType, nullable: Boolean = true)
  case class StructType(fields: Array[StructField])
  object StructType { def apply(fields: Seq[StructField]): StructType = StructType(fields.toArray) }
}

package org.apache.spark.sql.streaming {
  import java.util.UUID

  class StreamingQueryProgress(val id: UUID, val runId: UUID, val name: String, val timestamp: String, val batchId: Long) {
    def json: String = "{}"
  }

  abstract class StreamingQueryListener {
    import StreamingQueryListener._
    def onQueryStarted(event: QueryStartedEvent): Unit
    def onQueryProgress(event: QueryProgressEvent): Unit
    def onQueryIdle(event: QueryIdleEvent): Unit = ()
    def onQueryTerminated(event: QueryTerminatedEvent): Unit
  }

  object StreamingQueryListener {
    trait Event
    class QueryStartedEvent(val id: UUID, val runId: UUID, val name: String, val timestamp: String) extends Event
    class QueryProgressEvent(val progress: StreamingQueryProgress) extends Event
    class QueryIdleEvent(val id: UUID, val runId: UUID, val timestamp: String) extends Event
    class QueryTerminatedEvent(val id: UUID, val runId: UUID, val exception: Option[String]) extends Event
  }

  class StreamingQueryManager { def addListener(listener: StreamingQueryListener): Unit = () }
}
