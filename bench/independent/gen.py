#!/usr/bin/env python3
"""Independent generator of Spark Structured Streaming progress logs (JSON Lines).

Written apart from src/simulator, from the public shapes of Spark's progress JSON only (never from the
product's simulator or engine). Standard library only. Part of bench/independent (see README.md there).

Queue model per query:
  - arrivals: rate lam(t) rows/s (piecewise shape x AR(1) multiplicative noise), integrated on a grid
  - a micro-batch starting at s reads what arrived before s (minus already consumed), up to an optional cap
  - it runs d = overhead + rows / mu(s) (with jitter; GC spike multiplies one batch)
  - the next batch starts at the next trigger boundary, or right away when d overran it (T=0: back-to-back)
Reporting modes:
  1 Kafka, latestOffset read after the batch (DBR 17.1+): *OffsetsBehindLatest non-zero
  2 Kafka OSS: latestOffset at planning, uncapped => latest == end, metrics "0"
  3 Kafka Spark 3.0 era: no latestOffset key, no metrics, no commitOffsets
  4 Delta source or Auto Loader (cloudFiles) with numFilesOutstanding / numBytesOutstanding

usage: gen.py --seed N --family F [--mode M] --out FILE.jsonl
  (writes FILE.jsonl, FILE.label.json and FILE.truth.jsonl, the model's truth for analysis only)
"""
import argparse, bisect, json, math, random, uuid, datetime

ALERT_FAMILIES = ["step", "ramp", "caploss", "multi", "steplo"]
QUIET_FAMILIES = ["steady", "burst", "gc", "idle", "nearcap"]
FAMILIES = ALERT_FAMILIES + QUIET_FAMILIES
TRIGGERS = [0, 1, 2, 5, 10, 15, 30, 60, 120, 300]


def iso(ms):
    d = datetime.datetime.fromtimestamp(ms / 1000.0, tz=datetime.timezone.utc)
    return d.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (ms % 1000)


def java_double(x):
    """Java Double.toString-like string (metrics values are strings)."""
    x = float(x)
    if x == 0:
        return "0.0"
    if 1e-3 <= abs(x) < 1e7:
        r = repr(x)
        return r if ("." in r or "e" in r) else r + ".0"
    e = int(math.floor(math.log10(abs(x))))
    m = x / 10 ** e
    s = repr(round(m, 15))
    if "." not in s:
        s += ".0"
    return "%sE%d" % (s, e)


class Arrivals:
    """Cumulative arrivals A(t) on a lazily extended grid; lam_fn must be deterministic in t."""

    def __init__(self, t0, dt, lam_fn, sigma, rng, phi=0.7):
        self.t0, self.dt, self.lam_fn, self.sigma, self.rng, self.phi = t0, dt, lam_fn, sigma, rng, phi
        self.cum = [0.0]
        self.e = 0.0

    def _extend(self, t):
        while self.t0 + (len(self.cum) - 1) * self.dt < t:
            k = len(self.cum) - 1
            mid = self.t0 + (k + 0.5) * self.dt
            self.e = self.phi * self.e + math.sqrt(1 - self.phi ** 2) * self.rng.gauss(0, 1)
            rate = self.lam_fn(mid) * max(0.0, 1.0 + self.sigma * self.e)
            self.cum.append(self.cum[-1] + rate * self.dt)

    def A(self, t):
        if t <= self.t0:
            return 0.0
        self._extend(t + self.dt)
        x = (t - self.t0) / self.dt
        k = int(x)
        f = x - k
        return self.cum[k] + f * (self.cum[k + 1] - self.cum[k])

    def inv(self, a):
        """time at which cumulative arrivals reached a (a within extended grid)"""
        k = bisect.bisect_left(self.cum, a)
        if k <= 0:
            return self.t0
        if k >= len(self.cum):
            return self.t0 + (len(self.cum) - 1) * self.dt
        lo, hi = self.cum[k - 1], self.cum[k]
        f = 0.0 if hi <= lo else (a - lo) / (hi - lo)
        return self.t0 + (k - 1 + f) * self.dt


def simulate(q, ev, n_batches, stop_after_s=None, t_stop=None):
    """Run the queue model. q: query params; ev: events dict (times in seconds). Returns records."""
    arr_rng = random.Random(q["seed"] * 7 + 1)
    proc_rng = random.Random(q["seed"] * 7 + 2)
    T = q["T"]
    t0 = q["t0"]

    def shape(t):
        lam = q["lam0"]
        if "step_t" in ev and t >= ev["step_t"]:
            lam = ev["step_lam"]
        if "ramp_t0" in ev and t >= ev["ramp_t0"]:
            f = min(1.0, (t - ev["ramp_t0"]) / (ev["ramp_t1"] - ev["ramp_t0"]))
            lam = q["lam0"] + f * (ev["ramp_lam"] - q["lam0"])
        if "burst_t" in ev and ev["burst_t"] <= t < ev["burst_t"] + ev["burst_len"]:
            lam = q["lam0"] * ev["burst_mult"]
        if "idle_t" in ev and ev["idle_t"] <= t < ev["idle_t"] + ev["idle_len"]:
            lam = 0.0
        return lam

    def mu(t):
        m = q["mu"]
        if "loss_t" in ev and ev["loss_t"] <= t < ev["loss_t"] + ev["loss_len"]:
            m *= ev["loss_f"]
        return m

    arr = Arrivals(t0 - max(T, 1.0), q["dt"], shape, q["sigma"], arr_rng)
    consumed = 0  # total rows (Kafka: sum over partitions; files: whole files * rpf)
    w = q["weights"]
    P = len(w)
    cw = [sum(w[: i + 1]) for i in range(P)]

    def part_cum(A):  # per-partition cumulative arrival counts (ints, monotone in A)
        out, prev = [], 0
        for i in range(P):
            c = int(math.floor(A * cw[i] + 1e-9))
            out.append(c - prev)
            prev = c
        return out

    cons_p = [0] * P
    files_consumed = 0
    recs = []
    t = t0
    bid = q["bid0"]
    prev_start = None if q["bid0"] == 0 else t0 - (q["T"] or 1.0)
    last_event_t = -1e18
    idx = 0
    step_guard = 0
    while idx < n_batches:
        if t_stop is not None and t > t_stop:
            break
        step_guard += 1
        if step_guard > 2_000_000:
            break
        A = arr.A(t)
        if q["kind"] == "files":
            files_avail = int(A // q["rpf"]) - files_consumed
            avail_rows = files_avail * q["rpf"]
        else:
            pc = part_cum(A)
            avail_p = [pc[i] - cons_p[i] for i in range(P)]
            avail_rows = sum(avail_p)
        if avail_rows <= 0:
            # no-data trigger: progress at most every 10 s
            lo_ms = proc_rng.randint(1, 40)
            if t - last_event_t >= 10.0:
                recs.append({"idle": True, "start": t, "dur": lo_ms / 1000.0, "bid": bid, "lo_ms": lo_ms})
                last_event_t = t
            if T > 0:
                t = (math.floor((t - t0) / T + 1e-9) + 1) * T + t0
            else:
                t += 0.5
            continue
        # admitted
        if q["kind"] == "files":
            nf = files_avail if q["cap"] is None else min(files_avail, q["cap"])
            rows = nf * q["rpf"]
        else:
            if q["cap"] is None or avail_rows <= q["cap"]:
                take_p = avail_p
            else:
                take_p = [int(math.floor(a * q["cap"] / avail_rows)) for a in avail_p]
            rows = sum(take_p)
        jit = math.exp(proc_rng.gauss(0, q["jitter"]))
        ojit = math.exp(proc_rng.gauss(0, 0.1))
        proc = rows / mu(t) * jit
        over = q["o"] * ojit
        if ev.get("gc_idx") == idx:
            dur = (over + proc) * ev["gc_f"]
        else:
            dur = over + proc
        dur = max(dur, 0.005)
        start_ms = int(round(t * 1000))
        dur_ms = max(5, int(round(dur * 1000)))
        end = t + (dur_ms + 3) / 1000.0  # batchDuration <= triggerExecution + 2 ms
        rec = {"idle": False, "start": t, "dur": dur_ms / 1000.0, "bid": bid, "rows": rows, "idx": idx,
               "prev_start": prev_start, "over_ms": int(over * 1000)}
        if q["kind"] == "files":
            rec["files_start"] = files_consumed
            files_consumed += nf
            rec["files_end"] = files_consumed
            rec["nfiles"] = nf
            consumed = files_consumed * q["rpf"]
            A_end = arr.A(end)
            rec["files_latest_end"] = int(A_end // q["rpf"])
            rec["files_latest_plan"] = int(A // q["rpf"])
        else:
            rec["start_p"] = list(cons_p)
            cons_p = [cons_p[i] + take_p[i] for i in range(P)]
            rec["end_p"] = list(cons_p)
            consumed = sum(cons_p)
            rec["latest_plan_p"] = pc
            A_end = arr.A(end)
            rec["latest_end_p"] = part_cum(A_end)
        rec["true_backlog_end"] = A_end - consumed
        rec["true_backlog_start"] = A - (consumed - rows)
        rec["lam_now"] = shape(t)
        # event time of rows consumed in this batch
        rec["et_min"] = arr.inv(consumed - rows + 0.5) if rows > 0 else None
        rec["et_max"] = arr.inv(consumed) if rows > 0 else None
        recs.append(rec)
        last_event_t = t
        prev_start = t
        idx += 1
        bid += 1
        if T > 0:
            nb = (math.floor((t - t0) / T + 1e-9) + 1) * T + t0
            t = nb if end <= nb else end
        else:
            t = end + proc_rng.uniform(0.001, 0.02)
        if stop_after_s is not None and dur > stop_after_s:
            break
    return recs


def draw_query(rng, mode, seed, t0, triggers=None):
    q = {"seed": seed, "mode": mode, "t0": t0}
    q["T"] = rng.choice(triggers or TRIGGERS)
    q["kind"] = "files" if mode == 4 else "kafka"
    q["id"] = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    q["runId"] = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    q["name"] = rng.choice([None, "orders_enrich", "clicks_bronze", "payments_silver", "events_agg", "ingest_%d" % rng.randint(1, 99)])
    P = rng.choice([1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 100, 128, 200] if triggers is None else [1, 2, 3, 4, 6, 8, 12, 16, 24, 32]) if q["kind"] == "kafka" else 1
    raw = [rng.uniform(0.7, 1.3) for _ in range(P)]
    s = sum(raw)
    q["weights"] = [x / s for x in raw]
    q["topic"] = rng.choice(["orders", "clicks", "payments", "events.v2", "telemetry"])
    q["base_off"] = [rng.randint(0, 5_000_000) for _ in range(P)]
    q["bid0"] = 0 if rng.random() < 0.2 else rng.randint(1, 60000)
    # overhead per batch
    if q["T"] == 0:
        q["o"] = rng.uniform(0.3, 3.0)
    else:
        q["o"] = rng.uniform(0.2, min(6.0, max(0.5, 0.5 * q["T"])))
    q["mu"] = 10 ** rng.uniform(2.0, 5.3)  # rows/s capacity
    q["jitter"] = rng.uniform(0.02, 0.06)
    q["sigma"] = rng.uniform(0.0, 0.10)
    q["dt"] = min(30.0, max(0.1, max(q["T"], 1.0) / 8.0))
    q["cap"] = None
    q["rpf"] = None
    per = max(q["T"], q["o"] * 3)
    if q["kind"] == "files":
        q["rpf"] = int(10 ** rng.uniform(2.5, 5))
        q["bpf"] = int(q["rpf"] * rng.uniform(80, 400))
        q["src"] = rng.choice(["delta", "cloudFiles"])
        # ensure files per period >= ~3 so files are not too coarse
        minmu = 3 * q["rpf"] / per
        if q["mu"] < minmu:
            q["mu"] = minmu * rng.uniform(1.0, 3.0)
        if rng.random() < 0.5:
            k = rng.uniform(0.4, 2.0)
            q["cap"] = max(1, int(round(q["mu"] * per * k / q["rpf"])))
    elif mode in (1, 3) and rng.random() < 0.4:
        k = rng.uniform(0.4, 2.0)
        q["cap"] = max(10, int(round(q["mu"] * per * k)))
    q["ceff"] = capacity_eff(q)
    q["stateful"] = rng.random() < 0.3
    q["eventtime"] = rng.random() < 0.4
    q["with_batchDuration"] = mode in (1, 4) or (mode == 2 and rng.random() < 0.5)
    q["spark4_rates"] = mode == 2 and q["with_batchDuration"]
    q["sink"] = rng.choice(["delta", "foreachBatch", "kafka", "console"]) if mode in (2, 3) else "delta"
    return q


def capacity_eff(q):
    """max sustainable throughput rows/s given mu, overhead, trigger, cap"""
    mu, o, T, cap = q["mu"], q["o"], q["T"], q["cap"]
    if cap is None:
        return mu
    capr = cap * (q["rpf"] or 1)
    d = o + capr / mu
    return min(mu, capr / max(T, d))


def build_json(q, rec, dbid_state):
    mode = q["mode"]
    ts = iso(int(round(rec["start"] * 1000)))
    dur_ms = int(round(rec["dur"] * 1000))
    rng = random.Random(hash((q["seed"], rec["bid"], rec["idle"], int(rec["start"]))) & 0xffffffff)
    o = {"id": q["id"], "runId": q["runId"], "name": q["name"], "timestamp": ts, "batchId": rec["bid"]}
    if rec["idle"]:
        rows = 0
        ir = 0.0
        pr = 0.0
        dms = {"latestOffset": rec["lo_ms"], "triggerExecution": rec["lo_ms"] + rng.randint(0, 3)}
        if mode in (1, 4):
            o["batchDuration"] = dms["triggerExecution"] + 1
        elif q["with_batchDuration"]:
            o["batchDuration"] = dms["triggerExecution"] + 1
    else:
        rows = rec["rows"]
        if rec["prev_start"] is None:
            ir = 0.0
        else:
            gap = max(0.001, (int(round(rec["start"] * 1000)) - int(round(rec["prev_start"] * 1000))) / 1000.0)
            ir = rows / gap
        pr = rows / max(0.001, dur_ms / 1000.0)
        # breakdown
        lo = min(rng.randint(2, 400), max(1, dur_ms // 10))
        gb = rng.randint(0, 15)
        qp = rng.randint(3, 250)
        wc = rng.randint(15, 300)
        co = rng.randint(15, 300)
        cb = rng.randint(50, 900) if q["sink"] == "delta" and mode in (1, 4) else 0
        parts = {"latestOffset": lo, "getBatch": gb, "queryPlanning": qp, "walCommit": wc}
        if mode != 3:
            parts["commitOffsets"] = co
        if cb:
            parts["commitBatch"] = cb
        fixed = sum(parts.values())
        # the non-addBatch phases come out of the per-batch overhead; the row processing (rows / mu) is in addBatch
        budget = min(dur_ms * 0.6, 0.8 * rec["over_ms"])
        if fixed > budget:
            sc = budget / fixed
            parts = {k: int(v * sc) for k, v in parts.items()}
            fixed = sum(parts.values())
        parts["addBatch"] = dur_ms - fixed - rng.randint(0, 3)
        if parts["addBatch"] < 0:
            parts["addBatch"] = 0
        parts["triggerExecution"] = dur_ms
        dms = dict(sorted(parts.items()))
        if q["with_batchDuration"]:
            o["batchDuration"] = dur_ms + rng.randint(0, 2)
    rfmt = (lambda x: round(x, 1)) if q["spark4_rates"] else (lambda x: float(x))
    o["numInputRows"] = rows
    o["inputRowsPerSecond"] = rfmt(ir)
    o["processedRowsPerSecond"] = rfmt(pr)
    o["durationMs"] = dms
    if q["eventtime"]:
        et = {}
        if not rec["idle"] and rec.get("et_max") is not None:
            mn, mx = rec["et_min"], rec["et_max"]
            et["avg"] = iso(int((mn + mx) / 2 * 1000))
            et["max"] = iso(int(mx * 1000))
            et["min"] = iso(int(mn * 1000))
            dbid_state["maxet"] = max(dbid_state.get("maxet", 0), mx)
        if dbid_state.get("maxet"):
            et["watermark"] = iso(int((dbid_state["maxet"] - 600) * 1000))
        if et:
            o["eventTime"] = dict(sorted(et.items()))
    if q["stateful"]:
        # watermarked aggregation: new keys ~ removed (expired) keys, total hovers around a level K
        upd = 0 if rec["idle"] else min(rows, int(rows * 0.3) + 1)
        K = dbid_state.setdefault("state_K", rng.randint(10000, 2_000_000))
        tot = dbid_state.get("state_total", K)
        added = int(upd * rng.uniform(0.2, 0.4))
        removed = max(0, min(tot + added, int(added + 0.2 * (tot - K))))
        tot = tot + added - removed
        dbid_state["state_total"] = tot
        op = {"operatorName": "stateStoreSave", "numRowsTotal": tot, "numRowsUpdated": upd,
              "allUpdatesTimeMs": rng.randint(1, 500), "numRowsRemoved": removed,
              "allRemovalsTimeMs": rng.randint(0, 100), "commitTimeMs": rng.randint(10, 900),
              "memoryUsedBytes": tot * 180, "numRowsDroppedByWatermark": 0,
              "numShufflePartitions": 200, "numStateStoreInstances": 200,
              "customMetrics": {"loadedMapCacheHitCount": 400, "loadedMapCacheMissCount": 0,
                                "stateOnCurrentVersionSizeBytes": tot * 120}}
        o["stateOperators"] = [op]
    else:
        o["stateOperators"] = []
    o["sources"] = [build_source(q, rec, rows, rfmt(ir), rfmt(pr))]
    o["sink"] = build_sink(q, rec, rows)
    return o


def kafka_off(q, cum):
    return {q["topic"]: {str(i): q["base_off"][i] + cum[i] for i in range(len(cum))}}


def build_source(q, rec, rows, ir, pr):
    mode = q["mode"]
    if q["kind"] == "kafka":
        s = {"description": "KafkaV2[Subscribe[%s]]" % q["topic"]}
        if rec["idle"]:
            endp = rec.get("end_p_idle")
            startp = endp
        else:
            endp, startp = rec["end_p"], rec["start_p"]
        first = (not rec["idle"]) and rec["bid"] == 0
        s["startOffset"] = None if first else kafka_off(q, startp)
        s["endOffset"] = kafka_off(q, endp)
        metrics = None
        if mode == 1:
            latp = rec["latest_end_p"] if not rec["idle"] else endp
            s["latestOffset"] = kafka_off(q, latp)
            beh = [latp[i] - endp[i] for i in range(len(endp))]
            metrics = {"avgOffsetsBehindLatest": java_double(sum(beh) / len(beh)),
                       "estimatedTotalBytesBehindLatest": java_double(sum(beh) * 312.0),
                       "maxOffsetsBehindLatest": str(max(beh)), "minOffsetsBehindLatest": str(min(beh))}
        elif mode == 2:
            latp = rec["latest_plan_p"] if not rec["idle"] else endp
            s["latestOffset"] = kafka_off(q, latp)
            beh = [latp[i] - endp[i] for i in range(len(endp))]
            metrics = {"avgOffsetsBehindLatest": java_double(sum(beh) / len(beh)),
                       "maxOffsetsBehindLatest": str(max(beh)), "minOffsetsBehindLatest": str(min(beh))}
        s["numInputRows"] = rows
        s["inputRowsPerSecond"] = ir
        s["processedRowsPerSecond"] = pr
        if metrics:
            s["metrics"] = dict(sorted(metrics.items()))
        return s
    # files
    if rec["idle"]:
        fe = rec.get("files_end_idle", 0)
        fs = fe
        out_files = 0
    else:
        fs, fe = rec["files_start"], rec["files_end"]
        out_files = rec["files_latest_end"] - fe
    if q["src"] == "delta":
        s = {"description": "DeltaSource[dbfs:/mnt/lake/bronze/%s]" % q["topic"]}
        fpv = q["files_per_version"]

        def doff(f):
            return {"sourceVersion": 1, "reservoirId": q["reservoirId"], "reservoirVersion": q["v0"] + f // fpv,
                    "index": f % fpv - 1 if f % fpv else -1, "isStartingVersion": False}
    else:
        s = {"description": "CloudFilesSource[s3://landing/%s/]" % q["topic"]}

        def doff(f):
            return {"seqNum": q["v0"] + f, "sourceVersion": 1, "lastBackfillStartTimeMs": q["bf_ms"],
                    "lastBackfillFinishTimeMs": q["bf_ms"] + 5231}
    first = (not rec["idle"]) and rec["bid"] == 0
    s["startOffset"] = None if first else doff(fs)
    s["endOffset"] = doff(fe)
    s["latestOffset"] = None
    s["numInputRows"] = rows
    s["inputRowsPerSecond"] = ir
    s["processedRowsPerSecond"] = pr
    s["metrics"] = {"numBytesOutstanding": str(out_files * q["bpf"]), "numFilesOutstanding": str(out_files)}
    return s


def build_sink(q, rec, rows):
    k = q["sink"]
    if k == "delta":
        return {"description": "DeltaSink[dbfs:/mnt/lake/silver/%s_out]" % q["topic"], "numOutputRows": -1}
    if k == "foreachBatch":
        return {"description": "ForeachBatchSink", "numOutputRows": -1}
    if k == "kafka":
        return {"description": "org.apache.spark.sql.kafka010.KafkaSourceProvider$KafkaTable@5d1c1a7e", "numOutputRows": rows}
    return {"description": "org.apache.spark.sql.execution.streaming.ConsoleTable$@7687f0e2", "numOutputRows": rows}


def fill_idle(q, recs):
    """idle events carry the offsets consumed so far"""
    P = len(q["weights"])
    lastp = [0] * P
    lastf = 0
    for r in recs:
        if r["idle"]:
            r["end_p_idle"] = list(lastp)
            r["files_end_idle"] = lastf
        else:
            if q["kind"] == "kafka":
                lastp = r["end_p"]
            else:
                lastf = r["files_end"]


def period0(recs):
    st = [r["start"] for r in recs if not r["idle"]]
    gaps = sorted(b - a for a, b in zip(st, st[1:]))
    return gaps[len(gaps) // 2] if gaps else 1.0


def batch_start(recs, idx):
    for r in recs:
        if not r["idle"] and r["idx"] == idx:
            return r["start"]
    return None


def make_query(rng, seed, family, mode, t0, role, t_stop=None):
    """role: 'alert' (family dynamics) or 'quiet' (steady). Returns (q, recs, label)."""
    trig = None
    if t_stop is not None:
        span = t_stop - t0
        trig = [T for T in TRIGGERS if span / max(T, 0.7) <= 6000] or [300]
    q = draw_query(rng, mode, seed, t0, trig)
    if q["kind"] == "files":
        q["files_per_version"] = rng.randint(1, 20)
        q["reservoirId"] = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        q["v0"] = rng.randint(0, 100000)
        q["bf_ms"] = int(t0 * 1000) - rng.randint(10 ** 6, 10 ** 8)
    fam = family if role == "alert" or family in QUIET_FAMILIES else "steady"
    ev = {}
    label = {"id": q["id"], "name": q["name"], "role": role, "trigger_s": q["T"], "mode": mode,
             "partitions": len(q["weights"]), "cap": q["cap"], "overhead_s": round(q["o"], 3),
             "mu_rows_s": round(q["mu"], 1), "ceff_rows_s": round(q["ceff"], 1), "noise_sigma": round(q["sigma"], 3),
             "kind": q["kind"], "src": q.get("src")}
    if fam == "steady":
        rho = rng.uniform(0.5, 0.9)
        q["sigma"] = rng.uniform(0.0, 0.15)
    elif fam == "nearcap":
        rho = rng.uniform(0.85, 0.90)
        q["sigma"] = rng.uniform(0.0, 0.05)
    elif fam == "burst":
        rho = rng.uniform(0.3, 0.7)
    elif fam in ("gc", "idle"):
        rho = rng.uniform(0.4, 0.8)
    elif fam in ("step", "multi"):
        rho = rng.uniform(0.5, 0.8)
    elif fam == "steplo":  # stress: weakest overload (10-15 %) under heavy noise (8-15 %)
        rho = rng.uniform(0.6, 0.85)
        q["sigma"] = rng.uniform(0.08, 0.15)
    elif fam == "ramp":
        rho = rng.uniform(0.6, 0.8)
    elif fam == "caploss":
        rho = rng.uniform(0.6, 0.85)
    q["lam0"] = rho * q["ceff"]
    label["rho0"] = round(rho, 3)
    label["noise_sigma"] = round(q["sigma"], 3)
    N = rng.randint(150, 400)
    if t_stop is not None:
        N = 20000
    # pass 1: stationary, to learn batch times
    recs1 = simulate(q, {}, N, t_stop=t_stop)
    p0 = period0(recs1)
    label["period0_s"] = round(p0, 3)
    stop = None
    if fam in ("step", "multi", "steplo"):
        pre = rng.randint(140, max(141, N - 40))
        x = rng.uniform(0.10, 0.60) if fam != "steplo" else rng.uniform(0.10, 0.15)
        ev["step_t"] = batch_start(recs1, pre - 1)
        ev["step_lam"] = (1 + x) * q["ceff"]
        onset_idx = pre
        N = pre + (rng.randint(40, 80) if fam == "step" else rng.randint(16, 40))
        stop = 6 * 3600
        label.update(overload=round(x, 3))
    elif fam == "ramp":
        pre = rng.randint(110, max(111, N - 90))
        x = rng.uniform(0.10, 0.30)
        R = rng.randint(20, 60)
        ev["ramp_t0"] = batch_start(recs1, pre - 1)
        ev["ramp_t1"] = ev["ramp_t0"] + R * p0
        ev["ramp_lam"] = (1 + x) * q["ceff"]
        # onset: first batch reading data when the (noise-free) rate is >= 1.10 * capacity
        f110 = (1.10 * q["ceff"] - q["lam0"]) / (ev["ramp_lam"] - q["lam0"])
        ev["t110"] = ev["ramp_t0"] + f110 * (ev["ramp_t1"] - ev["ramp_t0"])
        onset_idx = None
        N = pre + R + rng.randint(40, 70)
        stop = 6 * 3600
        label.update(overload=round(x, 3), ramp_batches=R, ramp_start_idx=pre)
    elif fam == "caploss":
        pre = rng.randint(130, max(131, N - 60))
        f = None
        for _ in range(100):
            f = rng.uniform(0.4, 0.7)
            if 1.15 <= rho / f <= 1.8:
                break
        f = min(f, rho / 1.15)
        ev["loss_t"] = batch_start(recs1, pre - 1)
        ev["loss_len"] = max(1800.0, 30 * p0) * rng.uniform(1.0, 1.5)
        ev["loss_f"] = f
        onset_idx = pre
        N = pre + 400
        stop = 6 * 3600
        label.update(loss_factor=round(f, 3), loss_len_s=round(ev["loss_len"]), overload=round(rho / f - 1, 3))
    elif fam == "burst":
        k = rng.randint(1, 4)
        m = rng.uniform(2, 5)
        B = k * p0
        D = max(180.0, 4 * p0)
        bound = D / (D + (m - 1) * B)
        rho = max(0.15, min(rho, bound))
        q["lam0"] = rho * q["ceff"]
        label["rho0"] = round(rho, 3)
        recs1 = simulate(q, {}, N)
        b_idx = N // 2
        ev.update(burst_t=batch_start(recs1, b_idx - 1), burst_len=B, burst_mult=m)
        onset_idx = b_idx
        label.update(burst_mult=round(m, 2), burst_len_s=round(B, 1))
    elif fam == "gc":
        ev["gc_idx"] = N // 2 + rng.randint(-20, 20)
        ev["gc_f"] = rng.uniform(5, 20)
        onset_idx = ev["gc_idx"]
        label.update(gc_factor=round(ev["gc_f"], 2))
    elif fam == "idle":
        i_idx = N // 2
        ev["idle_t"] = batch_start(recs1, i_idx - 1)
        ev["idle_len"] = rng.uniform(600, 3600)
        onset_idx = i_idx
        label.update(idle_len_s=round(ev["idle_len"]))
    else:
        onset_idx = None
    recs = simulate(q, ev, N, stop_after_s=stop, t_stop=t_stop)
    fill_idle(q, recs)
    ex = [r for r in recs if not r["idle"]]
    if fam == "ramp":
        for r in ex:
            if r["idx"] >= pre and r["prev_start"] is not None and r["prev_start"] >= ev["t110"]:
                onset_idx = r["idx"]
                break
        if onset_idx is None:
            onset_idx = ex[-1]["idx"]
    bid_of = {r["idx"]: r["bid"] for r in ex}
    label["n_batches"] = len(ex)
    label["firstBatchId"] = ex[0]["bid"]
    label["lastBatchId"] = ex[-1]["bid"]
    label["n_idle_events"] = sum(1 for r in recs if r["idle"])
    if onset_idx is not None:
        label["event_idx"] = onset_idx
        label["eventBatchId"] = bid_of.get(onset_idx)
    if fam == "ramp":
        label["eventBatchId"] = bid_of.get(pre)  # ramp start
    if role == "alert":
        label["onset_idx"] = onset_idx
        label["onsetBatchId"] = bid_of[onset_idx]
        label["deadlineBatchId"] = bid_of[onset_idx] + 8
        # episode end
        if fam == "caploss":
            pre_bl = sorted(r["true_backlog_end"] for r in ex if r["idx"] < onset_idx)
            norm = pre_bl[len(pre_bl) // 2]
            tend = ev["loss_t"] + ev["loss_len"]
            end_bid = ex[-1]["bid"]
            for r in ex:
                if r["start"] > tend and r["true_backlog_end"] <= 2.0 * norm + 1:
                    end_bid = r["bid"]
                    break
            label["recoveredBatchId"] = end_bid
            label["episodeEndBatchId"] = min(ex[-1]["bid"], end_bid + 5)
            # trim: keep ~60 batches after recovery
            keep_to = end_bid + 60
            recs = [r for r in recs if r["bid"] <= keep_to]
            ex = [r for r in recs if not r["idle"]]
            label["n_batches"] = len(ex)
            label["lastBatchId"] = ex[-1]["bid"]
        else:
            label["episodeEndBatchId"] = ex[-1]["bid"]
    return q, recs, label


TRUTH = []


def generate(seed, family, mode=None):
    rng = random.Random(seed)
    if mode is None:
        mode = rng.choice([1, 2, 3, 4])
    t0 = datetime.datetime(2026, rng.randint(1, 11), rng.randint(1, 28), rng.randint(0, 23), rng.randint(0, 59),
                           tzinfo=datetime.timezone.utc).timestamp() + rng.randint(0, 59999) / 1000.0
    outs = []
    labels = []
    if family == "multi":
        nq = rng.randint(2, 4)
        q, recs, lab = make_query(rng, seed * 10, family, mode, t0, "alert")
        t_end = max(r["start"] + r["dur"] for r in recs)
        outs.append((q, recs))
        labels.append(lab)
        for i in range(1, nq):
            q, recs, lab = make_query(rng, seed * 10 + i, family, mode, t0 + rng.uniform(0, 120), "quiet", t_stop=t_end)
            outs.append((q, recs))
            labels.append(lab)
    else:
        role = "alert" if family in ALERT_FAMILIES else "quiet"
        q, recs, lab = make_query(rng, seed * 10, family, mode, t0, role)
        outs.append((q, recs))
        labels.append(lab)
    lines = []
    TRUTH[:] = [(q["id"], recs) for q, recs in outs]
    for q, recs in outs:
        st = {}
        for r in recs:
            lines.append((r["start"] + r["dur"], json.dumps(build_json(q, r, st), separators=(",", ":"))))
    lines.sort(key=lambda x: x[0])  # listener writes at batch end
    return mode, [l for _, l in lines], labels


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--family", required=True, choices=FAMILIES)
    ap.add_argument("--mode", type=int, choices=[1, 2, 3, 4])
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    mode, lines, labels = generate(a.seed, a.family, a.mode)
    with open(a.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    lab = {"seed": a.seed, "family": a.family, "mode": mode,
           "expect": "alert" if a.family in ALERT_FAMILIES else "quiet", "queries": labels}
    with open(a.out.rsplit(".", 1)[0] + ".label.json", "w") as f:
        json.dump(lab, f, indent=1)
    with open(a.out.rsplit(".", 1)[0] + ".truth.jsonl", "w") as f:  # model truth, for analysis only
        for qid, recs in TRUTH:
            for r in recs:
                if not r["idle"]:
                    f.write(json.dumps({"id": qid, "bid": r["bid"], "start": iso(int(r["start"] * 1000)), "dur_s": r["dur"],
                                        "rows": r["rows"], "lam": round(r["lam_now"], 2),
                                        "backlog_rows_start": round(r["true_backlog_start"]),
                                        "backlog_rows_end": round(r["true_backlog_end"])}) + "\n")


if __name__ == "__main__":
    main()
