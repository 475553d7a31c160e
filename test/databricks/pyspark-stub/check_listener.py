"""Drives streamdoctor_listener.py with a stub Spark: queued events are appended in one write, a failed
write keeps the rows for the next round, and callbacks never touch Spark."""
import json
import sys
import types

sys.path.insert(0, sys.argv[1])  # the stub pyspark
sys.path.insert(0, sys.argv[2])  # listener/
import streamdoctor_listener as sd  # noqa: E402


class Writer:
    def __init__(self, spark, rows):
        self.spark, self.rows = spark, rows

    def mode(self, mode):
        assert mode == "append"
        return self

    def saveAsTable(self, table):
        if self.spark.fail:
            raise RuntimeError("table is locked")
        self.spark.tables.setdefault(table, []).extend(self.rows)


class Frame:
    def __init__(self, spark, rows):
        self.spark, self.rows = spark, rows

    def select(self, *columns):
        names = [column if isinstance(column, str) else column.name for column in columns]
        assert names == ["query_id", "run_id", "query_name", "batch_id", "event_time", "ingested_at", "progress_json"], names
        return self

    @property
    def write(self):
        return Writer(self.spark, self.rows)


class Spark:
    def __init__(self):
        self.tables, self.fail, self.calls = {}, False, 0
        self.streams = types.SimpleNamespace(addListener=lambda listener: None)

    def createDataFrame(self, rows, schema):
        self.calls += 1
        return Frame(self, rows)


def event(batch):
    progress = types.SimpleNamespace(id="8f3c2a51-6b0e-4d7a-9c1e-2b5f7d9a0e34", runId="c41d9e07-2f8a-4b63-a5d2-7e19f0b3c6a8", name="orders_5min_agg", batchId=batch, timestamp="2026-09-14T10:15:00.000Z")
    progress.json = json.dumps({"id": progress.id, "runId": progress.runId, "batchId": batch})
    return types.SimpleNamespace(progress=progress)


spark = Spark()
listener = sd.StreamDoctorListener(spark, "main.streamdoctor.streaming_progress", flush_interval_s=3600)
for batch in range(5):
    listener.onQueryProgress(event(batch))
assert spark.calls == 0, "callbacks must not call Spark"
spark.fail = True
assert listener.flush() == 0
spark.fail = False
listener.onQueryProgress(event(5))
assert listener.flush() == 6
rows = spark.tables["main.streamdoctor.streaming_progress"]
assert [row[3] for row in rows] == [0, 1, 2, 3, 4, 5], rows
assert rows[0][0] == "8f3c2a51-6b0e-4d7a-9c1e-2b5f7d9a0e34" and json.loads(rows[0][5])["batchId"] == 0
assert listener.flush() == 0
print("listener ok")
