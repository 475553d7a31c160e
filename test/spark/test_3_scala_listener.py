"""The Scala listener jar (built by Maven from listener/scala) registered the platform-team way: only
Spark config (spark.jars + spark.sql.streaming.streamingQueryListeners), in a fresh classic JVM."""

import os
import subprocess
import sys

import sparkhelpers as h


def test_scala_listener_registered_by_config_writes_the_table_the_bot_reads(workdir):
    assert h.SCALA_JAR.is_file(), f"{h.SCALA_JAR} is missing: build it with `mvn -f listener/scala/pom.xml package` (npm run test:spark does)"
    result = subprocess.run(
        [sys.executable, str(h.REPO / "test" / "spark" / "scala_listener_job.py"), str(workdir / "scala")],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=h.REPO,
        # A classic session: drop what a Spark Connect session earlier in this process put in the environment.
        env={k: v for k, v in os.environ.items() if k not in ("SPARK_CONNECT_MODE_ENABLED", "SPARK_REMOTE", "SPARK_LOCAL_REMOTE", "SPARK_CONNECT_MODE")},
    )
    assert result.returncode == 0, f"stdout:\n{result.stdout[-3000:]}\nstderr:\n{result.stderr[-6000:]}"
    assert "scala listener ok" in result.stdout
