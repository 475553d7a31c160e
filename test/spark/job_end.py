"""Run by test_5_job_end.py in its own process (the end of the process is what is tested): an availableNow
query over 6 files (3 batches) with the listener installed, then the job ends one of these ways:

  py-exit         Python listener; the script just ends after awaitTermination() (the atexit hook flushes)
  py-flush-stop   Python listener; listener.flush() then spark.stop()
  scala-exit      Scala listener by Spark config; the script ends (the JVM shutdown hook flushes)
  scala-flush-stop Scala listener; its flush(timeoutMs) through Py4J, then spark.stop()

Prints one JSON line: the progress the query reported. Runs on PySpark 3.5 and 4.0."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import sparkhelpers as h  # noqa: E402
import workloads as w  # noqa: E402

mode, workdir = sys.argv[1], h.fresh_dir(sys.argv[2])
extra = {}
if mode.startswith("scala"):
    extra = h.scala_listener_conf()
spark = h.classic_session(workdir / "warehouse", extra=extra, app=f"streamdoctor-job-end-{mode}")
h.create_progress_table(spark)
if mode.startswith("py"):
    from streamdoctor_listener import install

    listener = install(spark, table=h.TABLE)  # the default 10 s interval: only the job end writes these rows
w.write_json_files(workdir / "input", files=6, rows_per_file=50)
frame = spark.readStream.schema("id LONG, file INT").option("maxFilesPerTrigger", 2).json(str(workdir / "input"))
query = (
    frame.writeStream.format("noop")
    .queryName(f"job_end_{mode.replace('-', '_')}")
    .option("checkpointLocation", str(workdir / "cp"))
    .trigger(availableNow=True)
    .start()
)
query.awaitTermination()
progress = [json.loads(p.json) if hasattr(p, "json") else p for p in query.recentProgress]  # 3.5: dicts
print(json.dumps({"id": str(query.id), "progress": progress}), flush=True)
if mode == "py-flush-stop":
    listener.flush()
    spark.stop()
elif mode == "scala-flush-stop":
    listeners = spark._jsparkSession.streams().listListeners()
    ours = [listeners[i] for i in range(len(listeners)) if listeners[i].getClass().getName() == "com.streamdoctor.StreamDoctorListener"]
    assert len(ours) == 1, "the Scala listener is not registered"
    ours[0].flush(30000)
    spark.stop()
