"""The end of a job on real local Spark (the flush timer and the table check: test_1_classic_python.py).

Listener events reach listeners asynchronously: awaitTermination() returns before the last progress (and the
terminated event) has been delivered, so the rows of an availableNow job are written only by the listener's
flush(), or by its exit hook (Python atexit; the JVM shutdown hook for Scala). Run in child processes, on
PySpark 4.0 and on classic PySpark 3.5 (.venv-spark/spark-3.5, where StreamingQueryListener.spark is
read-only and install() used to fail)."""

import os
import subprocess
import sys

import pytest

import checks
import sparkhelpers as h

PY35 = os.environ.get("STREAMDOCTOR_SPARK35_PYTHON", "")
def run_job(python, mode, folder):
    return h.run_job_script(python, "job_end.py", mode, folder, forbidden=("could not append", "not written"))


def table_batches(folder, query_id):
    """The child's table, read from its parquet files (this process may hold a Spark Connect session by now)."""
    import pyarrow.parquet as pq

    path = folder / "warehouse" / "streamdoctor.db" / "streaming_progress"
    files = sorted(str(f) for f in path.glob("*.parquet"))
    rows = [row for f in files for row in pq.read_table(f, columns=["query_id", "batch_id"]).to_pylist()]
    return sorted(row["batch_id"] for row in rows if row["query_id"] == query_id)


@pytest.mark.parametrize(
    "python, mode",
    [
        ("4.0", "py-exit"),
        ("4.0", "py-flush-stop"),
        ("3.5", "py-exit"),
        ("3.5", "py-flush-stop"),
        ("4.0", "scala-exit"),
        ("4.0", "scala-flush-stop"),
    ],
)
def test_an_availablenow_job_writes_every_row_when_it_ends(workdir, python, mode):
    if python == "3.5":
        assert PY35 and os.path.exists(PY35), "STREAMDOCTOR_SPARK35_PYTHON is not set: run the suite with npm run test:spark"
        out = subprocess.run([PY35, "-c", "import pyspark; print(pyspark.__version__)"], capture_output=True, text=True, check=True)
        assert out.stdout.startswith("3.5."), out.stdout
    if mode.startswith("scala"):
        assert h.SCALA_JAR.is_file(), f"{h.SCALA_JAR} is missing (npm run test:spark builds it)"
    folder = workdir / f"job-end-{python}-{mode}"
    run = run_job(PY35 if python == "3.5" else sys.executable, mode, folder)
    expected = sorted(p["batchId"] for p in run["progress"] if checks.executed(p))
    assert len(expected) == 3, run["progress"]
    assert table_batches(folder, run["id"]) == expected
