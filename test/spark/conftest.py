"""Fixtures for the real-Spark suite (npm run test:spark): a classic local session and a local Spark
Connect server, both small (local[2], 2 shuffle partitions), both with the progress table created from
listener/progress_table.sql."""

import shutil
from pathlib import Path

import pytest

pytest.register_assert_rewrite("checks", "sparkhelpers")

import sparkhelpers as h  # noqa: E402

WORK = h.REPO / "test" / "spark" / ".work"


@pytest.fixture(scope="session")
def workdir():
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    return WORK


@pytest.fixture(scope="module")
def classic(workdir):
    spark = h.classic_session(workdir / "classic-warehouse")
    h.create_progress_table(spark)
    yield spark
    spark.stop()


@pytest.fixture(scope="module")
def connect_server(workdir):
    server = h.ConnectServer(workdir / "connect-server")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def connect(connect_server):
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.remote(connect_server.url).getOrCreate()
    h.create_progress_table(spark)
    yield spark
    spark.stop()
