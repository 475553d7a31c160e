"""Run by test_3_scala_listener.py in its own process (spark.jars must be on the driver's class path from
JVM start): the Scala listener is registered only through Spark config, exactly as listener/README.md
tells a platform team, and the shared checks run on what it wrote."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import checks  # noqa: E402
import sparkhelpers as h  # noqa: E402

workdir = h.fresh_dir(sys.argv[1])
spark = h.classic_session(
    workdir / "warehouse",
    extra=h.scala_listener_conf(2),
    app="streamdoctor-scala-listener",
)
try:
    h.create_progress_table(spark)
    runs = checks.run_workloads(spark, workdir / "run", "scala")
    count = checks.check_all(spark, h.TABLE, runs)
    print(f"scala listener ok: {count} progress rows from {len(runs)} queries")
finally:
    spark.stop()
