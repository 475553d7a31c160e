"""The Python listener under Spark Connect (Databricks standard access mode and serverless run Python
this way), against a local Spark Connect server the suite starts on an ephemeral port."""

import checks
import sparkhelpers as h
import workloads as w


def test_client_side_listener_writes_through_self_spark(connect, workdir):
    """Spark 4.0 clients run Connect listeners in the client process; PySpark hands them the session as self.spark."""
    from streamdoctor_listener import install

    listener = install(connect, table=h.TABLE, flush_interval_s=2)
    try:
        assert listener.spark is connect
        runs = checks.run_workloads(connect, workdir / "connect-python", "connect_py")
        count = checks.check_all(connect, h.TABLE, runs)
    finally:
        connect.streams.removeListener(listener)
    assert listener.buffered == 0 and listener.written == count
    assert (listener.dropped, listener.failed_writes, listener.last_error) == (0, 0, None)


def test_server_side_listener_runs_pickled_in_the_servers_python_worker(connect, workdir):
    """Spark 3.5 clients (and servers that run listeners themselves) ship the pickled listener to the
    server, which runs it in its own Python worker with a session of its own as self.spark. This sends the
    object exactly that way (the AddStreamingQueryListenerCommand a 3.5 client sends)."""
    import sys

    import pyspark.sql.connect.proto as proto
    import streamdoctor_listener
    from pyspark import cloudpickle
    from pyspark.serializers import CloudPickleSerializer
    from pyspark.sql.connect.utils import get_python_ver

    listener = streamdoctor_listener.StreamDoctorListener(table=h.TABLE, flush_interval_s=1)
    cloudpickle.register_pickle_by_value(sys.modules["streamdoctor_listener"])  # what install() does under Connect
    listener._init_listener_id()
    add = proto.StreamingQueryManagerCommand()
    payload = proto.PythonUDF()
    payload.command = CloudPickleSerializer().dumps(listener)
    payload.python_ver = get_python_ver()
    add.add_listener.python_listener_payload.CopyFrom(payload)
    add.add_listener.id = listener._id
    connect.streams._execute_streaming_query_manager_cmd(add)
    folder = h.fresh_dir(workdir / "connect-server-side")
    try:
        query = w.rate(connect, "connect_server_side_rate", folder / "cp")
        try:
            h.wait_until(lambda: checks.data_batches(query) >= 3, 120, "3 batches with data")
        finally:
            query.stop()
        import json

        runs = [{"id": str(query.id), "runId": str(query.runId), "name": query.name, "progress": [json.loads(p.json) for p in query.recentProgress]}]
        rows = checks.wait_for_rows(connect, h.TABLE, runs)
        checks.check_table(rows, runs)
    finally:
        remove = proto.StreamingQueryManagerCommand()
        remove.remove_listener.id = listener._id
        connect.streams._execute_streaming_query_manager_cmd(remove)
    # The client's copy never ran: everything was written by the server's copy.
    assert listener.written == 0 and listener.buffered == 0
