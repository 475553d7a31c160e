"""The Scala listener jar (built by Maven from listener/scala) registered the platform-team way: only
Spark config (spark.jars + spark.sql.streaming.streamingQueryListeners), in a fresh classic JVM."""

import sparkhelpers as h


def test_scala_listener_registered_by_config_writes_the_table_the_bot_reads(workdir):
    result = h.run_scala_job("scala_listener_job.py", workdir / "scala")
    assert "scala listener ok" in result.stdout
