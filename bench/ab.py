#!/usr/bin/env python3
"""Two builds of nvmf4j in one run, in turn: bench/run of checkout A, then of checkout B, for several rounds.

  bench/ab.sh DIR_A DIR_B [--rounds 3] [--seconds 3] [--only REGEX] [--json FILE]

DIR_A and DIR_B are checkouts (e.g. `git worktree add --detach /tmp/before <commit>`), each with its own
bench/run and CLI jar (built on first use by its bin/nvmf4j). Each round runs `bench/run --no-idle --seconds N
[--only REGEX]` of A and of B; round 2 runs B first, and so on, so a drift of the machine's speed falls on both.
Prints, per figure of bench/run's table, the median of the rounds for A and for B, B/A, and the TCP limit's
median (the floor each build is judged against in its own run).
"""
import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
OUT = os.path.join(ROOT, "bench", "out")


def log(msg):
    print("ab-bench: " + msg, file=sys.stderr, flush=True)


def run(tree, args, path):
    cmd = [os.path.join(tree, "bench", "run"), "--no-idle", "--seconds", str(args.seconds), "--json", path]
    if args.only:
        cmd += ["--only", args.only]
    r = subprocess.run(cmd, cwd=tree, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0 or not os.path.exists(path):
        log("%s failed (exit %d):\n%s" % (" ".join(cmd), r.returncode, r.stdout[-2000:]))
        return None
    with open(path) as f:
        return json.load(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=3)
    ap.add_argument("--only")
    ap.add_argument("--json")
    args = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    trees = {"A": os.path.realpath(args.a), "B": os.path.realpath(args.b)}
    heads = {k: subprocess.run(["git", "-C", t, "log", "-1", "--format=%h %s"], capture_output=True,
                               text=True).stdout.strip()[:100] for k, t in trees.items()}
    load0 = open("/proc/loadavg").read().split()[:3]
    runs = {"A": [], "B": []}
    for rnd in range(1, args.rounds + 1):
        for side in (("A", "B") if rnd % 2 else ("B", "A")):
            log("round %d: %s (%s)" % (rnd, side, heads[side]))
            d = run(trees[side], args, os.path.join(OUT, "ab-%s-%s-r%d.json" % (stamp, side, rnd)))
            if d:
                runs[side].append(d)
    load1 = open("/proc/loadavg").read().split()[:3]
    figures = []
    for d in runs["A"] + runs["B"]:
        for row in d.get("table", []):
            if row["figure"] not in figures:
                figures.append(row["figure"])

    def med(side, fig, key):
        xs = [row[key] for d in runs[side] for row in d.get("table", [])
              if row["figure"] == fig and row.get(key) is not None]
        return statistics.median(xs) if xs else None

    print("bench/ab.sh, %s, %d rounds (medians), %s s per perf run, load %s before / %s after"
          % (stamp, args.rounds, args.seconds, " ".join(load0), " ".join(load1)))
    print("A: %s  (%s)" % (trees["A"], heads["A"]))
    print("B: %s  (%s)" % (trees["B"], heads["B"]))
    hdr = "%-40s %12s %12s %7s %12s %12s" % ("figure", "A", "B", "B/A", "TCP limit A", "TCP limit B")
    print(hdr)
    print("-" * len(hdr))
    rows = []
    for fig in figures:
        a, b = med("A", fig, "nvmf4j"), med("B", fig, "nvmf4j")
        la, lb = med("A", fig, "tcp_limit"), med("B", fig, "tcp_limit")
        ratio = b / a if a and b is not None else None
        rows.append({"figure": fig, "a": a, "b": b, "b_over_a": ratio, "tcp_limit_a": la, "tcp_limit_b": lb})

        def f(x):
            return "-" if x is None else ("%.1f" % x if x < 1000 else "{:,.0f}".format(x))

        print("%-40s %12s %12s %7s %12s %12s" % (fig, f(a), f(b), "-" if ratio is None else "%.2fx" % ratio,
                                                  f(la), f(lb)))
    path = args.json or os.path.join(OUT, "ab-%s.json" % stamp)
    with open(path, "w") as fh:
        json.dump({"date": stamp, "a": trees["A"], "b": trees["B"], "heads": heads, "load_before": load0,
                   "load_after": load1, "rows": rows, "runs": runs}, fh, indent=1)
    log("JSON: " + path)


if __name__ == "__main__":
    main()
