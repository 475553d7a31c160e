"""The Python listener in a Spark Connect 4.0 client that ends without flush() or spark.stop()."""

import subprocess
import sys
import textwrap
import time

import pytest

import sparkhelpers as h


# A server of its own: the suite's (test_2) made its warehouse's progress table already, and a module
# fixture of the same name would create it again there.
@pytest.fixture(scope="module")
def exit_server(workdir):
    server = h.ConnectServer(workdir / "connect-exit-server")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def exit_session(exit_server):
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.remote(exit_server.url).getOrCreate()
    h.create_progress_table(spark)
    yield spark
    spark.stop()

CLIENT = textwrap.dedent(
    """
    import sys, time
    from pyspark.sql import SparkSession
    from streamdoctor_listener import install
    url, table, folder = sys.argv[1:4]
    spark = SparkSession.builder.remote(url).getOrCreate()
    listener = install(spark, table=table, flush_interval_s=600)
    query = (spark.readStream.format("rate").option("rowsPerSecond", 5).load().writeStream.format("noop")
             .queryName("connect_exit_without_stop").option("checkpointLocation", folder)
             .trigger(processingTime="500 milliseconds").start())
    while len(query.recentProgress) < 2:
        time.sleep(0.2)
    query.stop()
    print("SCRIPT END", flush=True)
    # no listener.flush(), no spark.stop(): the script just ends
    """
)


def test_a_connect_client_that_ends_without_stop_exits_and_writes(exit_session, exit_server, workdir):
    """PySpark 4.0's Connect listener-bus thread is not a daemon and Python joins it before atexit hooks: the
    process never exited and the atexit flush never ran. The listener's threading exit hook flushes and removes."""
    folder = h.fresh_dir(workdir / "connect-exit")
    started = time.time()
    result = subprocess.run(
        [sys.executable, "-c", CLIENT, exit_server.url, h.TABLE, str(folder / "cp")],
        capture_output=True,
        text=True,
        timeout=120,
        env=h.classic_env(),
    )
    assert result.returncode == 0 and "SCRIPT END" in result.stdout, result.stderr[-3000:]
    assert time.time() - started < 90
    exit_session.sql(f"REFRESH TABLE {h.TABLE}")
    rows = exit_session.sql(f"SELECT count(*) AS c FROM {h.TABLE} WHERE query_name = 'connect_exit_without_stop'").first().c
    assert rows >= 2, result.stderr[-3000:]
