#!/usr/bin/env bash
# Creates (or reuses) the Python virtual environment the real-Spark tests and the trace recorder run in:
# .venv-spark/ at the repo root (git-ignored), with exactly the pinned versions below. Idempotent: when the
# stamp file inside the venv matches the pins, it returns at once. Prints the venv's python path last.
#
# Why pyspark 4.0.x: Databricks Runtime 17.x LTS is Spark 4.0; Spark 4.0 runs on Java 17 (the machine's JDK),
# and its pip package bundles the Spark Connect server (jars/spark-connect_2.13-*.jar), so a local Connect
# server starts without fetching anything from Maven at test time (3.5.x would need the spark-connect
# artifact resolved through --packages). The Scala listener (listener/scala/pom.xml) builds against the same
# Spark and Scala versions (SPARK_VERSION / SCALA_BINARY below are read by scripts/spark-env.sh).
# Client extras are the ones pyspark[connect] 4.0 asks for, pinned; plain parquet tables (no delta-spark:
# its jars would be fetched through Ivy at every fresh session start, and the progress table only needs append).
#
# `scripts/spark-venv.sh 3.5` makes the second environment instead: classic PySpark 3.5 (the Python of
# DBR 14.3 / 15.x, where StreamingQueryListener.spark is a read-only property), pyspark and py4j only,
# in .venv-spark/spark-3.5 (inside the ignored venv; one more ~320 MB pyspark download on a cold cache).
# test/spark runs the listener's job-end test in it (test_5_job_end.py).
set -euo pipefail
cd "$(dirname "$0")/.."

PINS=(
  "pyspark==4.0.1"
  "pandas==2.2.3"
  "numpy==2.2.6"
  "pyarrow==19.0.1"
  "grpcio==1.67.1"
  "grpcio-status==1.67.1"
  "googleapis-common-protos==1.65.0"
  "protobuf==5.28.3"
  "pytest==8.3.5"
)
VENV="${STREAMDOCTOR_SPARK_VENV:-$PWD/.venv-spark}"
if [[ "${1:-}" == "3.5" ]]; then
  PINS=(
    "pyspark==3.5.3"
    "py4j==0.10.9.7"
  )
  VENV="$VENV/spark-3.5"
fi
STAMP="$VENV/.streamdoctor-pins"
WANT="$(printf '%s\n' "${PINS[@]}")"
LISTENER_STAMP="$VENV/.streamdoctor-listener"
LISTENER_WANT="$(cat listener/python/pyproject.toml listener/python/streamdoctor_listener/*.py | sha256sum | cut -c1-16)"

need() {
  echo "test:spark needs $1: install $2" >&2
  exit 1
}

PYTHON="${PYTHON:-python3}"
command -v "$PYTHON" >/dev/null 2>&1 || need "Python 3.10+" "python3 (Debian: apt-get install -y python3 python3-venv)"
"$PYTHON" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' || need "Python 3.10+" "a newer python3 (found $("$PYTHON" --version 2>&1))"
"$PYTHON" -c 'import venv, ensurepip' 2>/dev/null || need "Python's venv module" "python3-venv (Debian: apt-get install -y python3-venv)"

if [[ ! -f "$STAMP" || "$(cat "$STAMP")" != "$WANT" || ! -x "$VENV/bin/python" ]]; then
  echo "== creating $VENV (pyspark and its Connect client, pytest)" >&2
  rm -rf "$VENV"
  mkdir -p "$(dirname "$VENV")"
  "$PYTHON" -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-input "${PINS[@]}" >&2
  printf '%s\n' "$WANT" >"$STAMP"
  rm -f "$LISTENER_STAMP"
fi

if [[ ! -f "$LISTENER_STAMP" || "$(cat "$LISTENER_STAMP")" != "$LISTENER_WANT" ]]; then
  # The listener, installed exactly as listener/README.md tells users to (pip install ./listener/python).
  echo "== installing the listener from listener/python" >&2
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-input --force-reinstall ./listener/python >&2
  rm -rf listener/python/build listener/python/*.egg-info
  printf '%s\n' "$LISTENER_WANT" >"$LISTENER_STAMP"
fi
echo "$VENV/bin/python"
