#!/usr/bin/env python3
"""Score the product's `diagnose --format json` output, and a plain rule set, against gen.py's labels.

A scenario is a base path B with B.jsonl (progress), B.label.json (labels), B.out.json (the product's
output), and optionally B.err.txt / B.rc (the product's stderr and exit code). Standard library only.

usage: score.py DIR          score every scenario in DIR (every DIR/*.label.json)
       score.py --one BASE   one scenario, one JSON line per query
"""
import glob
import json
import os
import statistics
import sys
from collections import defaultdict

LAGK = ("lag", "data_loss_risk")


def load_progress(path):
    per = defaultdict(list)
    with open(path) as fh:
        for line in fh:
            o = json.loads(line)
            per[o["id"]].append(o)
    return per


def backlog_of(o, mode):
    s = o["sources"][0]
    if mode == 4:
        return float(s.get("metrics", {}).get("numFilesOutstanding", 0))
    if mode in (1, 2) and s.get("latestOffset"):
        lat, end = s["latestOffset"], s["endOffset"]
        return float(sum(lat[t][p] - end[t][p] for t in lat for p in lat[t]))
    return None


def baseline(events, trigger_s, mode):
    """The plain rule set: alert when (duration > 1.5 x trigger for 3 consecutive batches) or (backlog grows
    4 consecutive batches); trigger 0 (back-to-back): the median of the first 20 batch durations is the
    'trigger'. An incident closes after 3 consecutive batches with neither condition."""
    ex = [o for o in events if o["numInputRows"] > 0]
    ex.sort(key=lambda o: (o["batchId"], o["timestamp"]))
    if not ex:
        return []
    durs = [o["durationMs"].get("triggerExecution", 0) / 1000.0 for o in ex]
    trig = trigger_s if trigger_s > 0 else statistics.median(durs[:20])
    incs, open_inc, over, grow, quiet = [], None, 0, 0, 0
    prev_b = None
    for o, d in zip(ex, durs):
        over = over + 1 if d > 1.5 * trig else 0
        b = backlog_of(o, mode)
        grow = grow + 1 if (b is not None and prev_b is not None and b > prev_b) else 0
        prev_b = b
        cond = over >= 3 or grow >= 4
        if cond:
            quiet = 0
            if open_inc is None:
                open_inc = {"kind": "lag", "openedAtBatchId": o["batchId"], "resolvedAtBatchId": None}
                incs.append(open_inc)
        elif open_inc is not None:
            quiet += 1
            if quiet >= 3:
                open_inc["resolvedAtBatchId"] = o["batchId"]
                open_inc = None
                quiet = 0
    return incs


def judge(lab, qlab, incs):
    """outcome for one query: quiet_ok / false_alarm (quiet role), recall / late / missed (alert role)"""
    r = {"incidents": [(i["kind"], i["openedAtBatchId"], i.get("resolvedAtBatchId")) for i in incs]}
    if qlab["role"] == "quiet":
        r["outcome"] = "false_alarm" if incs else "quiet_ok"
        return r
    ev, on, dl, ee = qlab["eventBatchId"], qlab["onsetBatchId"], qlab["deadlineBatchId"], qlab["episodeEndBatchId"]
    # the change begins during the batch before the first batch that reads changed data; modes 1/4 report the
    # backlog at that batch's end, so an incident opened there is a detection, not a pre-onset alarm
    ev = ev - 1
    pre = [i for i in incs if i["openedAtBatchId"] < ev]
    r["pre_onset"] = len(pre)
    lag = sorted([i for i in incs if i["kind"] in LAGK and i["openedAtBatchId"] >= ev], key=lambda i: i["openedAtBatchId"])
    lag_only = [i for i in incs if i["kind"] == "lag" and ev <= i["openedAtBatchId"] <= ee]
    r["episode_lag_incidents"] = len(lag_only)
    r["flap"] = len(lag_only) > 1
    if not lag:
        r["outcome"] = "missed"
    else:
        first = lag[0]["openedAtBatchId"]
        r["delay_batches"] = first - on
        r["outcome"] = "recall" if first <= dl else "late"
    return r


def _read(path, default=""):
    try:
        with open(path) as fh:
            return fh.read()
    except OSError:
        return default


def score_one(base):
    with open(base + ".label.json") as fh:
        lab = json.load(fh)
    try:
        out = json.loads(_read(base + ".out.json"))
    except ValueError:
        out = {"queries": []}
    prod = {q["id"]: q["incidents"] for q in out.get("queries", [])}
    prog = load_progress(base + ".jsonl")
    res = []
    for ql in lab["queries"]:
        p = judge(lab, ql, prod.get(ql["id"], []))
        b = judge(lab, ql, baseline(prog[ql["id"]], ql["trigger_s"], lab["mode"]))
        res.append((ql, p, b))
    return lab, res


def report(bases, out=sys.stdout):
    """Print the tables for the given scenario bases; returns the number of product problems."""
    def say(*a):
        print(*a, file=out)

    tab = {"product": defaultdict(lambda: defaultdict(int)), "baseline": defaultdict(lambda: defaultdict(int))}
    notes = []
    warn = []
    for base in sorted(bases):
        lab, res = score_one(base)
        err = _read(base + ".err.txt").strip()
        rc = _read(base + ".rc", "?").strip()
        name = os.path.basename(base)
        if err or rc != "0":
            warn.append((name, rc, err[:300]))
        for ql, p, b in res:
            for who, r in (("product", p), ("baseline", b)):
                fam = lab["family"] + ("" if ql["role"] == "alert" or lab["family"] != "multi" else "(quiet q)")
                key = (fam, lab["mode"])
                t = tab[who][key]
                t["n"] += 1
                t[r["outcome"]] += 1
                if r.get("flap"):
                    t["flap"] += 1
                if r.get("pre_onset"):
                    t["pre_onset"] += 1
                bad = r["outcome"] in ("missed", "late", "false_alarm") or r.get("flap") or r.get("pre_onset")
                if bad and who == "product":
                    notes.append((lab, ql, r))
                if "delay_batches" in r:
                    t.setdefault("delays", [])
                    t["delays"].append(r["delay_batches"])
    titles = {"product": "product (streamdoctor diagnose)", "baseline": "plain rule set"}
    for who in ("product", "baseline"):
        say("\n== %s ==" % titles[who])
        say("%-16s %4s %4s %6s %4s %6s %4s %4s %8s %9s" % ("family", "mode", "n", "recall", "late", "missed", "flap", "FA", "preOnset", "medDelay"))
        for key in sorted(tab[who], key=lambda k: (k[0], k[1])):
            t = tab[who][key]
            dl = t.get("delays", [])
            say("%-16s %4d %4d %6d %4d %6d %4d %4d %8d %9s" % (key[0], key[1], t["n"], t["recall"], t["late"], t["missed"], t["flap"],
                t["false_alarm"], t["pre_onset"], ("%.1f" % statistics.median(dl)) if dl else "-"))
        fam_tot = defaultdict(lambda: defaultdict(int))
        all_tot = {"alert": defaultdict(int), "quiet": defaultdict(int)}
        all_delays = []
        for (f, m), t in tab[who].items():
            role = "quiet" if (t["quiet_ok"] + t["false_alarm"]) else "alert"
            for k, v in t.items():
                if k != "delays":
                    fam_tot[f][k] += v
                    all_tot[role][k] += v
            all_delays += t.get("delays", [])
        say("-- per family totals")
        for f in sorted(fam_tot):
            t = fam_tot[f]
            say("%-16s n=%d recall=%d late=%d missed=%d flap=%d FA=%d preOnset=%d" % (f, t["n"], t["recall"], t["late"], t["missed"], t["flap"], t["false_alarm"], t["pre_onset"]))
        a, q = all_tot["alert"], all_tot["quiet"]
        say("TOTAL %-10s alert queries n=%d recall=%d late=%d missed=%d flap=%d preOnset=%d medDelay=%s; quiet queries n=%d FA=%d"
            % (who, a["n"], a["recall"], a["late"], a["missed"], a["flap"], a["pre_onset"],
               ("%.1f" % statistics.median(all_delays)) if all_delays else "-", q["n"], q["false_alarm"]))
    say("\n== product problems (%d) ==" % len(notes))
    for lab, ql, r in notes:
        keys = {k: ql.get(k) for k in ("role", "trigger_s", "partitions", "cap", "rho0", "overload", "onsetBatchId", "deadlineBatchId",
                                        "eventBatchId", "episodeEndBatchId", "gc_factor", "burst_mult", "burst_len_s", "idle_len_s",
                                        "loss_factor", "loss_len_s", "noise_sigma", "period0_s", "src") if ql.get(k) is not None}
        say("seed %d %s mode %d %s %s%s%s %s %s" % (lab["seed"], lab["family"], lab["mode"], ql["id"][:8], r["outcome"],
            " flap" if r.get("flap") else "", " pre" if r.get("pre_onset") else "", r["incidents"], keys))
    say("\n== product stderr / exit code != 0 (%d) ==" % len(warn))
    for w in warn:
        say(w)
    return len(notes)


def main():
    args = sys.argv[1:]
    if len(args) == 2 and args[0] == "--one":
        lab, res = score_one(args[1])
        for ql, p, b in res:
            print(json.dumps({"query": ql["id"], "role": ql["role"], "onsetBatchId": ql.get("onsetBatchId"),
                              "deadlineBatchId": ql.get("deadlineBatchId"), "product": p, "baseline": b}))
        return 0
    if len(args) != 1 or args[0].startswith("-") or not os.path.isdir(args[0]):
        print("usage: score.py DIR | score.py --one BASE (DIR holds *.label.json, *.jsonl, *.out.json)", file=sys.stderr)
        return 2
    bases = [f[:-len(".label.json")] for f in glob.glob(os.path.join(args[0], "*.label.json"))]
    report(bases)
    return 0


if __name__ == "__main__":
    sys.exit(main())
