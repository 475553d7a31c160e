"""The committed real-Spark traces (test/fixtures/real-spark, recorded on demand by
scripts/record-real-spark-traces.py) stay well-formed: every trace has its labels, every line is a
progress report the bot parses, and the labels point at batches that are in the trace."""

import importlib.util
import json

import sparkhelpers as h

FOLDER = h.REPO / "test" / "fixtures" / "real-spark"


def recorder_traces():
    """The trace names the recorder knows (one list: a trace added there must be recorded here)."""
    spec = importlib.util.spec_from_file_location("record_real_spark_traces", h.REPO / "scripts" / "record-real-spark-traces.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return list(module.TRACES)


TRACES = recorder_traces()
KINDS = {"lag", "state_growth", "stalled", "slow_repartition", "data_loss_risk"}


def test_every_trace_is_labelled_and_parsed_by_the_bot():
    assert sorted(p.name for p in FOLDER.glob("*.jsonl")) == sorted(f"{name}.jsonl" for name in TRACES)
    for name in TRACES:
        labels = json.loads((FOLDER / f"{name}.labels.json").read_text())
        lines = (FOLDER / f"{name}.jsonl").read_text().splitlines()
        progress = [json.loads(line) for line in lines]
        # A trace of several queries (interleaved as the listener wrote them) counts batches per query.
        by_name = {}
        for p in progress:
            by_name.setdefault(p["name"], []).append(p["batchId"])
        several = len(by_name) > 1
        all_ids = [p["batchId"] for p in progress]
        assert labels["trace"] == f"{name}.jsonl"
        assert (labels["batches"], labels["firstBatchId"], labels["lastBatchId"]) == (len(progress), min(all_ids), max(all_ids))
        assert len({p["id"] for p in progress}) == len(by_name), name
        for batch_ids in by_name.values():
            assert batch_ids == sorted(batch_ids), name
        for expected in labels["expect"]:
            assert expected["kind"] in KINDS
            assert ("query" in expected) == several, name
            batch_ids = by_name[expected["query"]] if several else all_ids
            assert batch_ids[0] <= expected["onsetBatchId"] <= expected["detectByBatchId"] <= batch_ids[-1]
            if "resolveByBatchId" in expected:
                assert expected["detectByBatchId"] <= expected["resolveByBatchId"] <= batch_ids[-1]
        assert set(labels["allow"]) <= KINDS
        report = h.diagnose(lines)
        assert sorted(q["id"] for q in report["queries"]) == sorted({p["id"] for p in progress}), name
