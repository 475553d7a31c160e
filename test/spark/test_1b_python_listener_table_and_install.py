"""The Python listener on classic PySpark: a table altered after install (rows inserted by name), install() run
twice (one listener), TIMESTAMP_NTZ timestamps refused."""

import pytest

import sparkhelpers as h
import workloads as w


# A session and warehouse of its own: test_1's module session left its progress table's files in the
# shared classic warehouse, which a new session's catalog does not know.
@pytest.fixture(scope="module")
def classic(workdir):
    spark = h.classic_session(workdir / "classic-1b-warehouse")
    h.create_progress_table(spark)
    yield spark
    spark.stop()


def _registered(spark):
    return len(spark._jsparkSession.streams().listListeners())


def test_rows_still_arrive_after_the_table_gains_a_column(classic, workdir):
    """ALTER TABLE ... ADD COLUMNS after install: insertInto (by position) failed every write with
    INSERT_COLUMN_ARITY_MISMATCH; by name, the new column is NULL and the rows arrive."""
    from streamdoctor_listener import install

    table = "spark_catalog.streamdoctor.altered_progress"
    h.create_progress_table(classic, table)
    listener = install(classic, table=table, flush_interval_s=1)
    classic.sql(f"ALTER TABLE {table} ADD COLUMNS (note STRING)")
    folder = h.fresh_dir(workdir / "altered")
    query = w.rate(classic, "classic_altered_table", folder / "cp", trigger="500 milliseconds")
    try:
        h.wait_until(lambda: len(query.recentProgress) >= 3, 60, "3 progress reports")
    finally:
        query.stop()
        listener.flush()
        listener.remove()
    assert listener.failed_writes == 0, listener.last_error
    classic.sql(f"REFRESH TABLE {table}")
    rows = classic.sql(f"SELECT note, event_time, ingested_at FROM {table} WHERE query_id = '{query.id}'").collect()
    assert len(rows) == listener.written >= 3
    assert all(r.note is None and r.event_time is not None and r.ingested_at is not None for r in rows)
    # A table with the columns in another order plus an extra one is accepted and written by name too.
    other = "spark_catalog.streamdoctor.reordered_progress"
    classic.sql(
        f"CREATE TABLE IF NOT EXISTS {other} (run_id STRING, query_id STRING, extra INT, query_name STRING, batch_id BIGINT, "
        "event_time TIMESTAMP_LTZ, ingested_at TIMESTAMP_LTZ, progress_json STRING) USING PARQUET"
    )
    second = install(classic, table=other, flush_interval_s=600)
    second._add(("the-query-id", "the-run-id", "n", 7, "2026-09-14T10:00:00.000Z", "{}"))
    assert second.flush() == 1 and second.failed_writes == 0, second.last_error
    second.remove()
    got = classic.sql(f"SELECT query_id, run_id, extra, batch_id, unix_millis(event_time) AS ms FROM {other}").first()
    assert (got.query_id, got.run_id, got.extra, got.batch_id, got.ms) == ("the-query-id", "the-run-id", None, 7, 1789380000000)


def test_install_twice_registers_one_listener(classic):
    """A notebook cell re-run: the second install returns the first listener and registers nothing more (rows
    were written twice); after remove(), or spark.streams.removeListener, install registers a new one."""
    from streamdoctor_listener import install

    table = "spark_catalog.streamdoctor.install_twice_progress"
    h.create_progress_table(classic, table)
    before = _registered(classic)
    first = install(classic, table=table, flush_interval_s=5)
    again = install(classic, table=table, flush_interval_s=1)
    try:
        assert again is first
        assert _registered(classic) == before + 1
    finally:
        first.remove()
    assert _registered(classic) == before
    third = install(classic, table=table)
    assert third is not first and _registered(classic) == before + 1
    classic.streams.removeListener(third)
    fourth = install(classic, table=table)
    try:
        assert fourth is not third and _registered(classic) == before + 1
    finally:
        fourth.remove()
    # Another table in the same session is another listener.
    other = install(classic, table=h.TABLE)
    try:
        assert other is not fourth and other.table == h.TABLE
    finally:
        other.remove()


def test_the_ddl_is_ltz_under_an_ntz_session_and_install_refuses_ntz(classic):
    """progress_table.sql run in a session with spark.sql.timestampType=TIMESTAMP_NTZ made TIMESTAMP_NTZ columns
    that install accepted and the bot's unix_millis then refused."""
    from streamdoctor_listener import ProgressTableError, install

    table = "spark_catalog.streamdoctor.ntz_session_progress"
    classic.conf.set("spark.sql.timestampType", "TIMESTAMP_NTZ")
    try:
        h.create_progress_table(classic, table)
    finally:
        classic.conf.unset("spark.sql.timestampType")
    types = {f.name: f.dataType.simpleString() for f in classic.table(table).schema.fields}
    assert (types["event_time"], types["ingested_at"]) == ("timestamp", "timestamp")
    install(classic, table=table).remove()

    ntz = "spark_catalog.streamdoctor.ntz_progress"
    classic.sql(
        f"CREATE TABLE IF NOT EXISTS {ntz} (query_id STRING, run_id STRING, query_name STRING, batch_id BIGINT, "
        "event_time TIMESTAMP_NTZ, ingested_at TIMESTAMP_NTZ, progress_json STRING) USING PARQUET"
    )
    with pytest.raises(ProgressTableError) as wrong:
        install(classic, table=ntz)
    message = str(wrong.value)
    assert "event_time is TIMESTAMP_NTZ, ingested_at is TIMESTAMP_NTZ" in message
    assert "progress_table.sql" in message and "\n" not in message
