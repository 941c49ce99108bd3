#!/usr/bin/env python3
"""Where the QD1 latency tail comes from (issue 17, item 3): one run, several variants, medians of the rounds.

  bench/tail.sh [--rounds 3] [--seconds 8] [--ramp 2] [--outlier-us 50] [--only REGEX] [--json FILE]

Every variant runs `nvmf4j serve --ram 1G` (softiwarp, 127.0.0.1) and `nvmf4j perf -q 1 -o 4096 -w randread`
against it, both JVMs logging their safepoints with HotSpot's CLOCK_MONOTONIC decoration
(-Xlog:safepoint=info:file=...:tn; a GC pause is a safepoint too) and perf keeping every I/O slower than
--outlier-us with its CLOCK_MONOTONIC submit time (perf --trace-outliers). For each run it reports:
  * p50 / p99 / p99.9 and IOPS (perf's histogram);
  * outliers per million I/Os, and the share of them that overlap a safepoint of either JVM;
  * per-thread context switches per second inside the measured window, voluntary (the thread slept: a
    spin budget ran out, a park) and involuntary (the scheduler took the core from a runnable thread: another
    thread woke on that core), from /proc/PID/task/TID/status, for both JVMs, summed by thread name;
  * CPU seconds per million I/Os of both processes (perf --cpu-of).
The variants change one cause at a time, so the table says how much of the tail each one removes.
"""
import argparse
import datetime
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import spdk as common  # noqa: E402  (free_port, terminate, loadavg, uptime_line)

ROOT = common.ROOT
OUT = common.OUT
NVMF4J = common.NVMF4J
NQN = "nqn.2026-12.io.nvmf4j:tail"

# name, what it changes, serve flags, perf flags, extra JVM options (both JVMs), pinned (serve core 0, perf core 1)
VARIANTS = [
    ("default-pinned", "the defaults (serve --spin-budget 100, perf --spin-us 200, the softiwarp engine looking "
     "every 20 ms), pinned as SPDK is",
     [], [], [], True),
    ("default-unpinned", "the defaults, both processes free to use both cores", [], [], [], False),
    ("spin-forever", "neither poll loop ever sleeps: serve --spin-budget 1000000, perf --spin-us 1000000",
     ["--spin-budget", "1000000"], ["--spin-us", "1000000"], [], True),
    ("no-periodic-safepoints", "the defaults with -XX:GuaranteedSafepointInterval=0 (no cleanup safepoint each s)",
     [], [], ["-XX:+UnlockDiagnosticVMOptions", "-XX:GuaranteedSafepointInterval=0"], True),
    ("engine-wakes-1000-per-s", "the defaults, the parked softiwarp engine waking every 1 ms (the default before "
     "this bench: -Dnvmf4j.softiwarp.inlineActiveMicros=1000)", [], [], ["-Dnvmf4j.softiwarp.inlineActiveMicros=1000"],
     True),
    ("engine-not-inline", "the defaults with every socket read by the softiwarp engine thread, not by the polling "
     "consumer (-Dnvmf4j.softiwarp.inlineProgress=false)", [], [], ["-Dnvmf4j.softiwarp.inlineProgress=false"], True),
    ("spin-forever-quiet", "spin-forever, no periodic safepoints, fixed JIT threads",
     ["--spin-budget", "1000000"], ["--spin-us", "1000000"],
     ["-XX:+UnlockDiagnosticVMOptions",
      "-XX:GuaranteedSafepointInterval=0", "-XX:CICompilerCount=2", "-XX:-UseDynamicNumberOfCompilerThreads"], True),
]


def log(msg):
    print("tail-bench: " + msg, file=sys.stderr, flush=True)


def threads_of(pid):
    """{tid: (name, voluntary, involuntary, cpu_ticks)} of a process, or {} when it is gone."""
    out = {}
    base = "/proc/%d/task" % pid
    try:
        tids = os.listdir(base)
    except OSError:
        return out
    for tid in tids:
        try:
            with open("%s/%s/status" % (base, tid)) as f:
                st = f.read()
            with open("%s/%s/stat" % (base, tid)) as f:
                s = f.read()
        except OSError:
            continue
        name = re.search(r"^Name:\s*(.*)$", st, re.M).group(1)
        vol = int(re.search(r"^voluntary_ctxt_switches:\s*(\d+)", st, re.M).group(1))
        inv = int(re.search(r"^nonvoluntary_ctxt_switches:\s*(\d+)", st, re.M).group(1))
        fields = s[s.rindex(")") + 2:].split()
        out[tid] = (name, vol, inv, int(fields[11]) + int(fields[12]))
    return out


def switch_rates(before, after, seconds):
    """Per thread name (JVM thread names, 15 characters): voluntary/s, involuntary/s, CPU share, over the window."""
    by = {}
    for tid, (name, vol, inv, ticks) in after.items():
        if tid not in before:
            continue
        _, v0, i0, t0 = before[tid]
        key = re.sub(r"\d+$", "#", name)  # GC Thread#0, C2 CompilerThre... numbered alike
        a = by.setdefault(key, [0.0, 0.0, 0.0])
        a[0] += (vol - v0) / seconds
        a[1] += (inv - i0) / seconds
        a[2] += (ticks - t0) / common.CLK_TCK / seconds
    return {k: {"voluntary_per_s": round(v[0], 1), "involuntary_per_s": round(v[1], 1), "cpu": round(v[2], 3)}
            for k, v in sorted(by.items()) if v[0] or v[1] or v[2] >= 0.005}


def safepoints(path):
    """[(start_ns, end_ns, what)] from a -Xlog:safepoint=info:file=...:tn log ("Total: N ns" ends the line)."""
    out = []
    if not os.path.exists(path):
        return out
    pat = re.compile(r"^\[(\d+)ns\].*Safepoint \"([^\"]+)\".*Total: (\d+) ns")
    with open(path) as f:
        for line in f:
            m = pat.search(line)
            if m:
                end = int(m.group(1))
                out.append((end - int(m.group(3)), end, m.group(2)))
    return out


def outliers(path):
    rows = []
    with open(path) as f:
        for line in f:
            if line[0].isdigit():
                a, b, _ = line.strip().split(",")
                rows.append((int(a), int(a) + int(b)))
    return rows


def overlapping(rows, pauses):
    """How many outlier intervals overlap at least one pause interval (both sorted by start)."""
    pauses = sorted(pauses)
    n, j = 0, 0
    for s, e in rows:
        while j < len(pauses) and pauses[j][1] < s:
            j += 1
        k = j
        while k < len(pauses) and pauses[k][0] <= e:
            if pauses[k][1] >= s:
                n += 1
                break
            k += 1
    return n


def run_variant(v, rnd, args, stamp):
    name, _, serve_flags, perf_flags, jvm, pinned = v
    tag = "%s-r%d" % (name, rnd)
    port = common.free_port()
    files = {k: os.path.join(OUT, "tail-%s-%s-%s" % (stamp, tag, k)) for k in
             ("serve.log", "serve-safepoints.log", "perf-safepoints.log", "outliers.csv", "perf.err")}
    env = dict(os.environ)
    base = env.get("NVMF4J_JAVA_OPTS", "")

    def opts(which):
        return " ".join([base] + jvm + ["-Xlog:safepoint=info:file=%s:tn" % files[which + "-safepoints.log"]]).strip()

    serve_cmd = [NVMF4J, "serve", "--ram", "1G", "--nqn", NQN, "--provider", "softiwarp",
                 "--listen", "127.0.0.1:%d" % port] + serve_flags
    perf_cmd = [NVMF4J, "perf", "--traddr", "127.0.0.1", "--trsvcid", str(port), "--nqn", NQN,
                "--provider", "softiwarp", "-q", "1", "-o", "4096", "-w", "randread", "-t", str(args.seconds),
                "-a", str(args.ramp), "--json", "--trace-outliers", files["outliers.csv"],
                "--outlier-us", str(args.outlier_us)] + perf_flags
    if pinned:
        serve_cmd = ["taskset", "-c", "0"] + serve_cmd
        perf_cmd = ["taskset", "-c", "1"] + perf_cmd
    slog = open(files["serve.log"], "w")
    serve = subprocess.Popen(serve_cmd, stdout=slog, stderr=subprocess.STDOUT,
                             env=dict(env, NVMF4J_JAVA_OPTS=opts("serve")), start_new_session=True)
    try:
        deadline = time.time() + 120
        while True:
            if serve.poll() is not None or time.time() > deadline:
                raise RuntimeError("serve did not start; see " + files["serve.log"])
            with open(files["serve.log"]) as f:
                if "listening on" in f.read():
                    break
            time.sleep(0.2)
        samples = {}
        with open(files["perf.err"], "w") as err:
            perf = subprocess.Popen(perf_cmd + ["--cpu-of", str(serve.pid)], stdout=subprocess.PIPE, stderr=err,
                                    text=True, env=dict(env, NVMF4J_JAVA_OPTS=opts("perf")))

            def sample():
                # inside the measured window: perf's JVM starts and connects in ~1 s, then ramps
                time.sleep(args.ramp + 1.5)
                samples["t0"] = time.monotonic()
                samples["serve0"], samples["perf0"] = threads_of(serve.pid), threads_of(perf.pid)
                time.sleep(max(1.0, args.seconds - 2.0))
                samples["t1"] = time.monotonic()
                samples["serve1"], samples["perf1"] = threads_of(serve.pid), threads_of(perf.pid)

            t = threading.Thread(target=sample, daemon=True)
            t.start()
            out, _ = perf.communicate(timeout=args.seconds + args.ramp + 120)
            t.join(5)
        if perf.returncode != 0:
            raise RuntimeError("perf failed (exit %d); see %s" % (perf.returncode, files["perf.err"]))
    finally:
        common.terminate(serve)
        slog.close()
    d = json.JSONDecoder().raw_decode(out, out.index("{"))[0]
    lat = d["read"]["latency_us"]
    ios = d["read"]["ios"]
    rows = outliers(files["outliers.csv"])
    sp_serve, sp_perf = safepoints(files["serve-safepoints.log"]), safepoints(files["perf-safepoints.log"])
    near = overlapping(rows, sp_serve + sp_perf)
    window = samples.get("t1", 0) - samples.get("t0", 0)
    cpu = d.get("cpu") or {}
    r = {"variant": name, "round": rnd, "iops": d["total"]["iops"], "p50": lat.get("p50"), "p99": lat.get("p99"),
         "p99.9": lat.get("p99.9"), "max": lat.get("max"), "ios": ios, "outliers": len(rows),
         "outliers_per_m_io": len(rows) * 1e6 / ios if ios else None,
         "outliers_in_safepoint": near,
         "safepoints": {"serve": len(sp_serve), "perf": len(sp_perf)},
         "target_cpu_s_per_m_io": cpu.get("target_cpu_seconds_per_million_ios"),
         "initiator_cpu_s_per_m_io": cpu.get("initiator_cpu_seconds_per_million_ios"),
         "files": files}
    if window > 0:
        r["threads"] = {"serve": switch_rates(samples["serve0"], samples["serve1"], window),
                        "perf": switch_rates(samples["perf0"], samples["perf1"], window)}
    return r


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=8)
    ap.add_argument("--ramp", type=int, default=2)
    ap.add_argument("--outlier-us", type=int, default=50)
    ap.add_argument("--only", help="run only the variants whose name matches this regex")
    ap.add_argument("--json")
    args = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    variants = [v for v in VARIANTS if not args.only or re.search(args.only, v[0])]
    if not variants:
        sys.exit("tail-bench: no variant matches --only " + args.only)
    before, up0 = common.loadavg(), common.uptime_line()
    results = []
    for rnd in range(1, args.rounds + 1):
        order = variants if rnd % 2 else list(reversed(variants))
        for v in order:
            log("round %d: %s" % (rnd, v[0]))
            try:
                results.append(run_variant(v, rnd, args, stamp))
            except (RuntimeError, subprocess.TimeoutExpired, ValueError) as e:
                log("%s round %d failed: %s" % (v[0], rnd, e))
    after, up1 = common.loadavg(), common.uptime_line()
    print("bench/tail.sh, %s, %d CPUs, %d rounds (medians), %d s per run (+%d s ramp), 4 KiB randread QD1, "
          "outlier >= %d us, load %.2f before / %.2f after" % (stamp, os.cpu_count(), args.rounds, args.seconds,
                                                               args.ramp, args.outlier_us, before[0], after[0]))
    print("uptime before: " + up0)
    print("uptime after:  " + up1)
    hdr = "%-24s %8s %7s %7s %8s %10s %8s %12s %10s %10s" % (
        "variant", "IOPS", "p50 us", "p99 us", "p99.9 us", "outl./M IO", "in SP %", "tgt CPU s/M", "tgt inv/s",
        "perf inv/s")
    print(hdr)
    print("-" * len(hdr))
    summary = []
    for v in variants:
        rs = [r for r in results if r["variant"] == v[0]]
        if not rs:
            continue

        def inv(r, side):
            t = r.get("threads", {}).get(side)
            return sum(x["involuntary_per_s"] for x in t.values()) if t else None

        row = {"variant": v[0], "what": v[1], "iops": med([r["iops"] for r in rs]),
               "p50": med([r["p50"] for r in rs]), "p99": med([r["p99"] for r in rs]),
               "p99.9": med([r["p99.9"] for r in rs]),
               "outliers_per_m_io": med([r["outliers_per_m_io"] for r in rs]),
               "in_safepoint_pct": med([100.0 * r["outliers_in_safepoint"] / r["outliers"] if r["outliers"] else 0.0
                                        for r in rs]),
               "target_cpu_s_per_m_io": med([r["target_cpu_s_per_m_io"] for r in rs]),
               "target_involuntary_per_s": med([inv(r, "serve") for r in rs]),
               "perf_involuntary_per_s": med([inv(r, "perf") for r in rs])}
        summary.append(row)

        def f(x, p=1):
            return "-" if x is None else ("%.*f" % (p, x))

        print("%-24s %8s %7s %7s %8s %10s %8s %12s %10s %10s" % (
            v[0], f(row["iops"], 0), f(row["p50"]), f(row["p99"]), f(row["p99.9"]), f(row["outliers_per_m_io"], 0),
            f(row["in_safepoint_pct"]), f(row["target_cpu_s_per_m_io"]), f(row["target_involuntary_per_s"], 0),
            f(row["perf_involuntary_per_s"], 0)))
    print()
    print("busiest threads (last round of each variant; context switches per second, CPU share):")
    for v in variants:
        rs = [r for r in results if r["variant"] == v[0] and "threads" in r]
        if not rs:
            continue
        r = rs[-1]
        for side in ("serve", "perf"):
            t = r["threads"][side]
            top = sorted(t.items(), key=lambda kv: -(kv[1]["voluntary_per_s"] + kv[1]["involuntary_per_s"]))[:5]
            print("  %-24s %-5s " % (v[0], side) + "; ".join(
                "%s vol %.0f inv %.0f cpu %.2f" % (k, x["voluntary_per_s"], x["involuntary_per_s"], x["cpu"])
                for k, x in top))
    doc = {"date": stamp, "load_before": before, "load_after": after, "uptime_before": up0, "uptime_after": up1,
           "args": vars(args), "summary": summary, "runs": results}
    path = args.json or os.path.join(OUT, "tail-%s.json" % stamp)
    with open(path, "w") as fh:
        json.dump(doc, fh, indent=1)
    log("JSON: " + path)


if __name__ == "__main__":
    main()
