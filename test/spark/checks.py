"""One real-Spark scenario and its checks, shared by the classic, Spark Connect and Scala-listener tests:
four real streaming queries run with a listener installed; then the progress table must hold exactly
their progress, the bot's own statement run by Spark SQL must return it the way the bot reads it, and
the local Databricks stand-in must answer the same statement with the same columns and rows."""

import json
from datetime import datetime, timezone

import sparkhelpers as h
import workloads as w

DATA_BATCHES = 3
FILE_ROWS = 50


def data_batches(query):
    return sum(1 for progress in query.recentProgress if progress.numInputRows > 0)


def run_workloads(spark, workdir, prefix):
    """Starts the four workloads, waits for DATA_BATCHES batches with data from each, stops them.
    Returns per query: id, runId, name and the progress JSON it reported (recentProgress)."""
    workdir = h.fresh_dir(workdir)
    w.write_json_files(workdir / "input", files=2 * DATA_BATCHES, rows_per_file=FILE_ROWS)
    queries = []
    try:
        queries.append(w.rate(spark, f"{prefix}_rate", workdir / "cp-rate"))
        queries.append(w.files(spark, f"{prefix}_files", workdir / "cp-files", workdir / "input", max_files_per_trigger=2))
        queries.append(w.windowed_count(spark, f"{prefix}_window_agg", workdir / "cp-window"))
        queries.append(w.dedupe_unbounded(spark, f"{prefix}_dedupe", workdir / "cp-dedupe"))
        h.wait_until(lambda: all(data_batches(q) >= DATA_BATCHES for q in queries), 180, f"{DATA_BATCHES} batches with data from every query")
    finally:
        for query in queries:
            query.stop()
    for query in queries:
        assert query.exception() is None, f"{query.name} failed: {query.exception()}"
    return [
        {"id": str(q.id), "runId": str(q.runId), "name": q.name, "progress": [json.loads(p.json) for p in q.recentProgress]}
        for q in queries
    ]


def table_rows(spark, table, ids):
    id_list = ", ".join(f"'{i}'" for i in ids)
    return spark.sql(
        f"SELECT query_id, run_id, query_name, batch_id, unix_millis(event_time) AS event_ms, unix_micros(ingested_at) AS ingested_us, progress_json "
        f"FROM {table} WHERE query_id IN ({id_list})"
    ).collect()


def executed(progress):
    """A trigger that ran a batch. Idle triggers are kept in recentProgress but reach listeners only as
    onQueryIdle (no progress object, Spark 3.5+), so the table never holds them."""
    return "addBatch" in progress.get("durationMs", {})


def expected_keys(runs):
    return sorted((r["id"], p["batchId"], p["timestamp"]) for r in runs for p in r["progress"] if executed(p))


def wait_for_rows(spark, table, runs, timeout_s=90):
    """Waits until the table holds one row per progress the queries reported (the listener flushes on termination)."""
    want = expected_keys(runs)
    ids = [r["id"] for r in runs]

    def written():
        rows = table_rows(spark, table, ids)
        got = sorted((row.query_id, row.batch_id, json.loads(row.progress_json)["timestamp"]) for row in rows)
        return rows if got == want else None

    return h.wait_until(written, timeout_s, f"{len(want)} progress rows in {table}", step_s=1.0)


def ms(timestamp_text):
    return int(datetime.strptime(timestamp_text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc).timestamp() * 1000 + 0.5)


def row_key(row):
    """The bot's row key (progress-table-sql.ts rowKey): concat_ws('/') skips NULLs."""
    parts = [row[0], row[1], row[2], row[3]]
    return "/".join(part for part in parts if part is not None)


def check_table(rows, runs):
    """Every column the listener wrote agrees with the progress it wrote."""
    names = {r["id"]: r["name"] for r in runs}
    run_ids = {r["id"]: r["runId"] for r in runs}
    for row in rows:
        progress = json.loads(row.progress_json)
        assert progress["id"] == row.query_id
        assert row.run_id == run_ids[row.query_id] == progress["runId"]
        assert row.query_name == names[row.query_id] == progress["name"]
        assert row.batch_id == progress["batchId"]
        assert row.event_ms == ms(progress["timestamp"])
        assert row.ingested_us is not None


def check_workload_shapes(rows, runs):
    """The progress the listener wrote really is what each workload should report (real sources and state
    operators). Read from the table: over Connect, recentProgress carries a reduced JSON, listeners the full one."""
    written = {r["id"]: [] for r in runs}
    for row in rows:
        written[row.query_id].append(json.loads(row.progress_json))
    rate, files, window, dedupe = ([p for p in sorted(written[r["id"]], key=lambda p: p["batchId"]) if p["numInputRows"] > 0] for r in runs)
    assert all(p["sources"][0]["description"].startswith("RateStreamV2") for p in rate)
    assert [p["numInputRows"] for p in files] == [2 * FILE_ROWS] * DATA_BATCHES
    assert all(p["sources"][0]["description"].startswith("FileStreamSource") for p in files)
    assert all(p["stateOperators"][0]["operatorName"] == "stateStoreSave" and "watermark" in p["eventTime"] for p in window)
    assert all(p["stateOperators"][0]["operatorName"] == "dedupe" for p in dedupe)
    assert dedupe[-1]["stateOperators"][0]["numRowsTotal"] > dedupe[0]["stateOperators"][0]["numRowsTotal"]


def check_bot_reads(spark, table, runs):
    """The bot's statement (by id for three queries, by name for the fourth) on Spark SQL; its rows parsed by the bot."""
    ids = [r["id"] for r in runs[:-1]]
    names = [runs[-1]["name"]]
    request = h.bot_statement(table, query_ids=ids, query_names=names)
    columns, rows = h.run_bot_statement(spark, request)
    assert columns == request["columns"] == ["query_id", "run_id", "batch_id", "event_ms", "ingested_us", "progress_json"]
    # The SQL types the stand-in declares for them (STRING / BIGINT), as Spark computes them.
    types = spark.sql(request["statement"], args=h.spark_args(request["parameters"])).dtypes
    assert types == [("query_id", "string"), ("run_id", "string"), ("batch_id", "bigint"), ("event_ms", "bigint"), ("ingested_us", "bigint"), ("progress_json", "string")]
    assert sorted((row[0], int(row[2]), json.loads(row[5])["timestamp"]) for row in rows) == expected_keys(runs)
    # Keyset order: (ingested_at, row key), the order the bot's cursor relies on.
    order = [(int(row[4]), row_key(row)) for row in rows]
    assert order == sorted(order)
    for row in rows:
        progress = json.loads(row[5])
        assert (row[0], row[1], int(row[2]), int(row[3])) == (progress["id"], progress["runId"], progress["batchId"], ms(progress["timestamp"]))

    # The next page after a position inside a group of rows written by one flush (same ingested_at).
    middle = len(rows) // 2
    after = h.bot_statement(table, query_ids=ids, query_names=names, after_us=int(rows[middle][4]), after_key=row_key(rows[middle]))
    assert h.run_bot_statement(spark, after) == (columns, rows[middle + 1 :])

    # The bot's parser and engine accept every row: all four queries come back from `streamdoctor diagnose`.
    report = h.diagnose([row[5] for row in rows])
    assert sorted(q["id"] for q in report["queries"]) == sorted(r["id"] for r in runs)
    return request, columns, rows


def check_standin_agrees(spark, table, runs):
    """The same statement against the local Databricks stand-in, holding the same rows, answers the same.

    The stand-in stores ingested_at in milliseconds, Spark in microseconds; so both sides are given a copy
    of the listener's rows with ingested_at truncated to the millisecond (every other column as written),
    and everything is compared exactly: column names and order, column types (the stand-in's result
manifest against Spark's schema), and every row, for three requests (all
    queries from the start; a keyset page after a row inside a flush group; a name-only request)."""
    copy = f"{table}_ms"
    ids = [r["id"] for r in runs[:-1]]
    names = [runs[-1]["name"]]
    id_list = ", ".join(f"'{r['id']}'" for r in runs)
    spark.sql(f"DROP TABLE IF EXISTS {copy}")
    spark.sql(
        f"CREATE TABLE {copy} USING PARQUET AS SELECT query_id, run_id, query_name, batch_id, event_time, "
        f"date_trunc('MILLISECOND', ingested_at) AS ingested_at, progress_json FROM {table} WHERE query_id IN ({id_list})"
    )
    rows = [
        {"query_id": r.query_id, "run_id": r.run_id, "query_name": r.query_name, "batch_id": r.batch_id, "ingested_us": r.ingested_us, "progress_json": r.progress_json}
        for r in spark.sql(f"SELECT query_id, run_id, query_name, batch_id, unix_micros(ingested_at) AS ingested_us, progress_json FROM {copy}").collect()
    ]
    first = h.bot_statement(copy, query_ids=ids, query_names=names)
    _, first_rows = h.run_bot_statement(spark, first)
    middle = first_rows[len(first_rows) // 2]
    requests = [
        first,
        h.bot_statement(copy, query_ids=ids, query_names=names, after_us=int(middle[4]), after_key=row_key(middle)),
        h.bot_statement(copy, query_ids=[], query_names=names),
    ]
    spark_answers = [h.run_bot_statement(spark, request) for request in requests]
    standin = h.standin_answers(copy, rows, [{"statement": r["statement"], "parameters": r["parameters"]} for r in requests])
    spark_types = [t.upper() for _, t in spark.sql(requests[0]["statement"], args=h.spark_args(requests[0]["parameters"])).dtypes]
    for (spark_columns, spark_rows), answer in zip(spark_answers, standin):
        assert answer["columns"] == spark_columns
        assert answer["types"] == spark_types
        first_difference = next(((i, a, b) for i, (a, b) in enumerate(zip(answer["rows"], spark_rows)) if a != b), None)
        assert (len(answer["rows"]), first_difference) == (len(spark_rows), None)
    assert len(spark_answers[0][1]) == len(expected_keys(runs)) and len(spark_answers[2][1]) == len([p for p in runs[-1]["progress"] if executed(p)])
    spark.sql(f"DROP TABLE IF EXISTS {copy}")
    return len(rows)


def check_all(spark, table, runs):
    rows = wait_for_rows(spark, table, runs)
    check_table(rows, runs)
    check_workload_shapes(rows, runs)
    check_bot_reads(spark, table, runs)
    check_standin_agrees(spark, table, runs)
    return len(rows)
