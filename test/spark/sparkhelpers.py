"""Shared by the real-Spark tests (test/spark) and the trace recorder (scripts/record-real-spark-traces.py):
local sessions, a local Spark Connect server, the progress table made from the product DDL, the bot's
statement as the TypeScript code prints it, and the bot's parser through `streamdoctor diagnose`."""

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TABLE = "spark_catalog.streamdoctor.streaming_progress"
SCALA_JAR = REPO / "listener" / "scala" / "target" / "streamdoctor-listener_2.13-0.3.0.jar"


def spark_home():
    import pyspark

    return str(Path(pyspark.__file__).parent)


def base_conf(warehouse):
    """Small, loopback-only, quick-to-report local Spark."""
    return {
        "spark.master": "local[2]",
        "spark.sql.shuffle.partitions": "2",
        "spark.default.parallelism": "2",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.driver.host": "127.0.0.1",
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.sql.warehouse.dir": str(warehouse),
        "spark.sql.session.timeZone": "UTC",
        "spark.driver.extraJavaOptions": f"-Dlog4j.configurationFile=file:{REPO / 'test' / 'spark' / 'log4j2.properties'}",
        # Idle progress (and onQueryIdle) every second instead of every 10 s.
        "spark.sql.streaming.noDataProgressEventInterval": "1000",
    }


def classic_session(warehouse, extra=None, app="streamdoctor-test-spark"):
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName(app)
    for key, value in {**base_conf(warehouse), **(extra or {})}.items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


class ConnectServer:
    """A local Spark Connect server on an ephemeral loopback port, in its own JVM; stop() ends it."""

    def __init__(self, workdir, extra=None):
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.log_path = self.workdir / "connect-server.log"
        home = spark_home()
        conf = {
            **base_conf(self.workdir / "warehouse"),
            "spark.connect.grpc.binding.address": "127.0.0.1",
            "spark.connect.grpc.binding.port": "0",
            **(extra or {}),
        }
        command = [os.path.join(home, "bin", "spark-submit"), "--class", "org.apache.spark.sql.connect.service.SparkConnectServer"]
        for key, value in conf.items():
            command += ["--conf", f"{key}={value}"]
        command.append("spark-internal")
        env = {**os.environ, "SPARK_HOME": home, "PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable}
        self._log = open(self.log_path, "wb")
        self.process = subprocess.Popen(command, stdout=self._log, stderr=subprocess.STDOUT, cwd=self.workdir, env=env, start_new_session=True)
        self.port = self._wait_for_port(timeout_s=180)
        self.url = f"sc://127.0.0.1:{self.port}"

    def _wait_for_port(self, timeout_s):
        deadline = time.time() + timeout_s
        pattern = re.compile(rb"Spark Connect server started at: \S*?:(\d+)")
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the Spark Connect server exited ({self.process.returncode}); see {self.log_path}:\n{self.log_tail()}")
            match = pattern.search(self.log_path.read_bytes())
            if match:
                port = int(match.group(1))
                with socket.create_connection(("127.0.0.1", port), timeout=5):
                    return port
            time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"the Spark Connect server did not start within {timeout_s} s; see {self.log_path}:\n{self.log_tail()}")

    def log_tail(self, lines=40):
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=30)
        self._log.close()


def progress_table_ddl(table=TABLE):
    """listener/progress_table.sql's CREATE TABLE, for a local catalog: parquet instead of Delta (no CLUSTER BY)."""
    text = (REPO / "listener" / "progress_table.sql").read_text()
    match = re.search(r"CREATE TABLE IF NOT EXISTS main\.streamdoctor\.streaming_progress \((.*?)\n\)\nUSING DELTA", text, re.S)
    assert match, "listener/progress_table.sql no longer has the CREATE TABLE this test adapts"
    return f"CREATE TABLE IF NOT EXISTS {table} ({match.group(1)}\n)\nUSING PARQUET"


def create_progress_table(spark, table=TABLE):
    namespace = table.rsplit(".", 1)[0]
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {namespace}")
    spark.sql(progress_table_ddl(table))


def node(args, stdin=None, timeout=120):
    result = subprocess.run(["node", *args], input=stdin, capture_output=True, text=True, cwd=REPO, timeout=timeout)
    if result.returncode != 0:
        raise RuntimeError(f"node {' '.join(args)} failed ({result.returncode}):\n{result.stderr[-4000:]}")
    return result.stdout


def bot_statement(table=TABLE, query_ids=(), query_names=(), after_us=0, after_key=""):
    """The progress-table statement and parameters exactly as the bot's TypeScript builds them."""
    out = node(
        [
            "bin/run-ts.mjs",
            "scripts/print-progress-statement.ts",
            "--table",
            table,
            "--query-ids",
            json.dumps(list(query_ids)),
            "--query-names",
            json.dumps(list(query_names)),
            "--after-us",
            str(after_us),
            "--after-key",
            after_key,
        ]
    )
    return json.loads(out)


def spark_args(parameters):
    """Statement Execution API parameters → spark.sql(args=...): typed values as Python values, the rest strings."""
    args = {}
    for parameter in parameters:
        kind = (parameter.get("type") or "STRING").upper()
        value = parameter.get("value")
        if value is None:
            args[parameter["name"]] = None
        elif kind in ("BIGINT", "LONG", "INT", "INTEGER", "SMALLINT", "TINYINT"):
            args[parameter["name"]] = int(value)
        elif kind in ("DOUBLE", "FLOAT"):
            args[parameter["name"]] = float(value)
        else:
            args[parameter["name"]] = str(value)
    return args


def run_bot_statement(spark, request):
    """Runs the bot's statement on Spark SQL; returns (columns, rows) with values as the JSON_ARRAY format has them (strings, NULL as None)."""
    frame = spark.sql(request["statement"], args=spark_args(request["parameters"]))
    columns = list(frame.columns)
    rows = [[None if value is None else str(value) for value in row] for row in frame.collect()]
    return columns, rows


def diagnose(progress_json_lines):
    """The bot's parser and engine on the given progress JSON (`streamdoctor diagnose --format json`)."""
    return json.loads(node(["bin/streamdoctor.mjs", "diagnose", "--format", "json"], stdin="\n".join(progress_json_lines) + "\n"))


def standin_answers(table, rows, requests):
    """The same statements against the local Databricks stand-in holding `rows`."""
    payload = json.dumps({"table": table, "rows": rows, "requests": requests})
    return json.loads(node(["bin/run-ts.mjs", "scripts/standin-progress-query.ts"], stdin=payload))["results"]


CONNECT_VARIABLES = ("SPARK_CONNECT_MODE_ENABLED", "SPARK_REMOTE", "SPARK_LOCAL_REMOTE", "SPARK_CONNECT_MODE")


def classic_env():
    """This process's environment for a classic session: without what a Spark Connect session earlier in it put there."""
    return {k: v for k, v in os.environ.items() if k not in CONNECT_VARIABLES}


def run_script(python, script, *args):
    """Runs `python test/spark/<script> ARGS…` in a fresh process and a classic session; asserts it exited 0 and
    returns it."""
    result = subprocess.run(
        [python, str(REPO / "test" / "spark" / script), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=REPO,
        env=classic_env(),
    )
    assert result.returncode == 0, f"stdout:\n{result.stdout[-3000:]}\nstderr:\n{result.stderr[-6000:]}"
    return result


def run_job_script(python, script, mode, folder, forbidden=("could not append",)):
    """Runs `python test/spark/<script> MODE FOLDER` (run_script); asserts it printed none of `forbidden` on
    stderr; returns the JSON of its last line of output."""
    result = run_script(python, script, mode, folder)
    for text in forbidden:
        assert text not in result.stderr, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def run_scala_job(script, workdir):
    """Runs test/spark/<script> in a fresh process with the Scala listener jar (spark.jars must be on the
    driver's class path from JVM start), in a classic session; asserts it exited 0 and returns it."""
    assert SCALA_JAR.is_file(), f"{SCALA_JAR} is missing: build it with `mvn -f listener/scala/pom.xml package` (npm run test:spark does)"
    return run_script(sys.executable, script, workdir)


def settle(read, done, timeout_s):
    """Polls read() until done(value) or the deadline; returns the last value (the caller judges it)."""
    deadline = time.time() + timeout_s
    value = read()
    while not done(value) and time.time() < deadline:
        time.sleep(0.2)
        value = read()
    return value


def run_steps(spark, workdir, steps):
    """For a job script: runs each (name, step) on a fresh folder under `workdir`, recording what it returns or its
    traceback (the next steps still run) and stopping the streams it left running; prints the results as one JSON
    line, which run_scala_job's caller reads."""
    results = {}
    for name, step in steps:
        try:
            results[name] = step(fresh_dir(workdir / name))
        except Exception:  # noqa: BLE001 - recorded for the test; the next steps still run
            results[name] = {"error": traceback.format_exc()[-3000:]}
        finally:
            for query in spark.streams.active:
                query.stop()
    print(json.dumps(results), flush=True)


SCALA_LISTENER = "com.streamdoctor.StreamDoctorListener"


def scala_listener_conf(flush_interval_s=None, **extra):
    """Session settings that install the Scala listener from its jar, writing to TABLE (every `flush_interval_s`
    seconds when given), plus `extra`."""
    conf = {"spark.jars": str(SCALA_JAR), "spark.sql.streaming.streamingQueryListeners": SCALA_LISTENER, "spark.streamdoctor.table": TABLE}
    if flush_interval_s is not None:
        conf["spark.streamdoctor.flushIntervalSeconds"] = str(flush_interval_s)
    return {**conf, **extra}


def registered_scala_listeners(spark):
    """The Scala listeners registered with the session's streams."""
    listeners = spark._jsparkSession.streams().listListeners()
    return [listeners[i] for i in range(len(listeners)) if listeners[i].getClass().getName() == SCALA_LISTENER]


def long_trigger():
    """A processing-time trigger of 10 minutes or more whose second batch is at least 3 minutes away: Spark
    runs the first batch at once, then at the next multiple of the interval since the epoch."""
    now = time.time()
    seconds = next(s for s in range(600, 3600, 60) if s - now % s >= 180)
    return f"{seconds} seconds"


def wait_until(predicate, timeout_s, what, step_s=0.25):
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step_s)
    raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")


def fresh_dir(path):
    shutil.rmtree(path, ignore_errors=True)
    Path(path).mkdir(parents=True)
    return Path(path)
