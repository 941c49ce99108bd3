#!/usr/bin/env python3
"""SPDK's NVMe/TCP target and spdk_nvme_perf beside nvmf4j (softiwarp and NVMe/TCP) and the two crossed, one run.

  bench/spdk.sh --spdk DIR [--sides LIST] [--rounds 3] [--seconds 8] [--ramp 2] [--json FILE] [--html FILE]
                [--only REGEX]

DIR is an SPDK build made by bench/spdk-build.sh (build/bin/nvmf_tgt, build/bin/spdk_nvme_perf, scripts/rpc.py).
Each round measures the same seven workloads on every side of --sides (comma-separated; default all), in a
fixed order that alternates (round 2 reverses round 1's); the sides and the targets they share are in SIDES and
TARGETS below:
  * spdk: nvmf_tgt on core 0 (-m 0x1, --no-huge), TCP transport, a 1 GiB malloc bdev of 512-byte blocks written
    whole once before the first round; spdk_nvme_perf on core 1 (-c 0x2, --no-huge) over 127.0.0.1;
  * nvmf4j-pinned: `nvmf4j serve --ram 1G` (softiwarp) under `taskset -c 0`, `nvmf4j perf` under `taskset -c 1`;
  * nvmf4j-unpinned: the same without taskset;
  * nvmf4j-tcp-pinned: `nvmf4j serve -t tcp --ram 1G` under `taskset -c 0`, `nvmf4j perf --transport tcp`
    under `taskset -c 1`: NVMe/TCP on both ends, as the spdk side;
  * spdk-perf-to-nvmf4j-tcp: spdk_nvme_perf on core 1 against that same nvmf4j serve -t tcp;
  * nvmf4j-tcp-to-spdk: nvmf4j perf --transport tcp on core 1 against that same nvmf_tgt.
Only the target being measured runs: the others are stopped with SIGSTOP (SPDK's reactor busy-polls a whole
core even when idle) and resumed with SIGCONT for their turn.
Figures: 4 KiB randread QD1 p50/p99/p99.9; 4 KiB randread and randwrite QD32 IOPS, over 1 and over 2 I/O queues
(the 2-queue rows: 32 outstanding in total, see WORKLOADS); 128 KiB sequential read and write QD8 MB/s (10^6
bytes); target CPU seconds per million I/Os (utime + stime of the target process from
/proc/PID/stat). The table gives the median of the rounds per figure and, for every side but spdk, its ratio to
spdk (side / spdk).

Placement: before and after every measurement, with every target stopped and no perf running, bench/placement.c
(built into bench/out with gcc) times a cache line's round trip between core 0 and core 1. On a virtual machine
the hypervisor places the two vCPUs near each other (sharing a cache) or far apart, and moves them; far, a loopback
pair's 128 KiB rates halve, whatever the stack. A run counts as "near" when both probes are at most twice the
shortest round trip of the whole bench run. The log gives each run's probes; a second table gives each figure's
medians over the rounds in which every side's run was near, so two stacks are compared in the same placement.
"""
import argparse
import datetime
import html as htmlmod
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
OUT = os.path.join(ROOT, "bench", "out")
NVMF4J = os.path.join(ROOT, "bin", "nvmf4j")
NQN_SPDK = "nqn.2016-06.io.spdk:cnode1"
NQN_NVMF4J = "nqn.2026-12.io.nvmf4j:bench"
CLK_TCK = os.sysconf("SC_CLK_TCK")

# label, queue depth, I/O size, pattern (spdk_nvme_perf's and nvmf4j perf's -q -o -w alike), I/O queues.
# With 2 queues the depth is the total on both sides: spdk_nvme_perf -q 32 -P 2 keeps 32 I/Os outstanding per
# namespace spread over its 2 queue pairs (perf.c submit_io(ns_ctx, g_queue_depth)); nvmf4j perf's -q is per
# queue, so it gets -q 16 -P 2. Both targets keep one core (one SPDK reactor, one nvmf4j poll group): on this
# 2-core machine a second target core would be the initiator's.
WORKLOADS = [
    ("qd1-randread-4k", 1, 4096, "randread", 1),
    ("qd32-randread-4k", 32, 4096, "randread", 1),
    ("qd32-randwrite-4k", 32, 4096, "randwrite", 1),
    ("seqread-128k", 8, 131072, "read", 1),
    ("seqwrite-128k", 8, 131072, "write", 1),
    ("qd32-2q-randread-4k", 32, 4096, "randread", 2),
    ("qd32-2q-randwrite-4k", 32, 4096, "randwrite", 2),
]


# what log lines start with; a script that imports this module for its parts sets its own name
LOG_PREFIX = "spdk-bench"


def log(msg):
    print(LOG_PREFIX + ": " + msg, file=sys.stderr, flush=True)


def die(msg):
    log(msg)
    sys.exit(1)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid):
    """utime + stime of the whole process (all threads), /proc/PID/stat fields 14 and 15."""
    with open("/proc/%d/stat" % pid) as f:
        s = f.read()
    fields = s[s.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def loadavg():
    return [float(x) for x in open("/proc/loadavg").read().split()[:3]]


def uptime_line():
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "load average: %s" % loadavg()


def stop(p):
    if p is not None and p.poll() is None:
        os.kill(p.pid, signal.SIGSTOP)


def cont(p):
    if p is not None and p.poll() is None:
        os.kill(p.pid, signal.SIGCONT)


def terminate(p, grace=15):
    if p is None or p.poll() is not None:
        return
    os.kill(p.pid, signal.SIGCONT)
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(grace)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


# ---------------------------------------------------------------------------------------------- SPDK

MALLOC_BDEV = (["bdev_malloc_create", "-b", "Malloc0", "1024", "512"], "Malloc0")


class Spdk:
    """nvmf_tgt on the cores of core_mask (default core 0) with one bdev (default: a 1 GiB malloc bdev) behind an
    NVMe/TCP listener on 127.0.0.1.
    bdev: (the rpc.py arguments that create it, its name); bench/disk.py passes bdev_aio_create."""

    def __init__(self, d, port, bdev=MALLOC_BDEV, logname="spdk-nvmf_tgt.log", core_mask="0x1"):
        self.dir = d
        self.port = port
        self.nqn, self.transport = NQN_SPDK, "tcp"   # what an initiator connects to (nvmf4j_perf_cmd)
        self.sock = "/tmp/nvmf4j-spdk-bench-%d.sock" % os.getpid()
        self.logfile = os.path.join(OUT, logname)
        self.log = open(self.logfile, "w")
        # --disable-cpumask-locks: the per-core lock files would refuse a second SPDK app on core 0 (another
        # user's); the measurement itself keeps one SPDK app per core.
        self.p = subprocess.Popen([os.path.join(d, "build/bin/nvmf_tgt"), "-m", core_mask, "--no-huge", "-s", "2048",
                                   "-r", self.sock, "--disable-cpumask-locks"],
                                  stdout=self.log, stderr=subprocess.STDOUT, env=spdk_env(d), start_new_session=True)
        self.pid = self.p.pid
        deadline = time.time() + 60
        while not self.rpc_ok("spdk_get_version"):
            if self.p.poll() is not None or time.time() > deadline:
                self.close()
                die("nvmf_tgt did not start; see " + self.logfile)
            time.sleep(0.3)
        for args in (["nvmf_create_transport", "-t", "TCP"],
                     bdev[0],
                     ["nvmf_create_subsystem", NQN_SPDK, "-a", "-s", "SPDK00000000000001"],
                     ["nvmf_subsystem_add_ns", NQN_SPDK, bdev[1]],
                     ["nvmf_subsystem_add_listener", NQN_SPDK, "-t", "tcp", "-a", "127.0.0.1", "-s", str(port)]):
            r = self.rpc(*args)
            if r.returncode != 0:
                self.close()
                die("rpc.py %s failed: %s" % (" ".join(args), r.stderr[-1000:]))

    def rpc(self, *args):
        return subprocess.run([sys.executable, os.path.join(self.dir, "scripts/rpc.py"), "-s", self.sock, "-t", "30"]
                              + list(args), capture_output=True, text=True, timeout=60)

    def rpc_ok(self, *args):
        try:
            return os.path.exists(self.sock) and self.rpc(*args).returncode == 0
        except subprocess.TimeoutExpired:
            return False

    def close(self):
        terminate(self.p)
        self.log.close()
        try:
            os.unlink(self.sock)
        except OSError:
            pass


def spdk_env(d):
    env = dict(os.environ)
    conf = os.path.join(OUT, "openssl-empty.cnf")
    open(conf, "w").close()
    env["OPENSSL_CONF"] = conf   # SPDK's TLS init fails on some distributions' default OpenSSL config
    return env


def spdk_perf_cmd(d, port, args, seconds, ramp, core_mask="0x2", nqn=NQN_SPDK):
    trid = "trtype:TCP adrfam:IPv4 traddr:127.0.0.1 trsvcid:%d subnqn:%s" % (port, nqn)
    cmd = [os.path.join(d, "build/bin/spdk_nvme_perf"), "--no-huge", "-s", "512", "-c", core_mask, "-r", trid] + args
    if seconds:
        cmd += ["-t", str(int(seconds))]
    if ramp:
        cmd += ["-a", str(int(ramp))]
    return cmd


def spdk_perf(d, port, args, seconds, ramp, label, target_pid, core_mask="0x2"):
    cmd = spdk_perf_cmd(d, port, args, seconds, ramp, core_mask)
    errlog = os.path.join(OUT, "spdk-perf-%s.log" % label)
    c0, w0 = cpu_seconds(target_pid), time.time()
    with open(errlog, "w") as err:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=err, text=True, env=spdk_env(d),
                           timeout=(seconds or 60) + (ramp or 0) + 120)
    c1, w1 = cpu_seconds(target_pid), time.time()
    with open(errlog, "a") as err:
        err.write(r.stdout)
    if r.returncode != 0:
        log("spdk_nvme_perf %s failed (exit %d); see %s" % (label, r.returncode, errlog))
        return None
    out = parse_spdk_perf(r.stdout)
    if out is None:
        log("spdk_nvme_perf %s printed no Total line; see %s" % (label, errlog))
        return None
    # SPDK's reactor spins whole cores: its CPU is a rate (cores busy) over the process's life, times the
    # seconds one I/O takes at the measured rate.
    out["target_cores_busy"] = (c1 - c0) / (w1 - w0)
    out["target_cpu_s_per_m_io"] = out["target_cores_busy"] / out["iops"] * 1e6 if out["iops"] else None
    return out


def spdk_perf_windowed(d, target, args, seconds, ramp, label):
    """spdk_nvme_perf against a target that does not spin when idle (nvmf4j serve -t tcp), whose CPU over perf's
    whole life would count perf's start-up as idle target time: the target's CPU is read over the measured window
    only, as nvmf4j perf --cpu-of reads it. perf.c prints "Initialization complete. Launching workers." as its
    workers start; each connects its I/O queue pairs, then runs -a seconds of warm-up and -t measured ones
    (work_fn): the window read here starts and ends that connect earlier, both ends while the target is busy.
    stdbuf -oL: the line must arrive when printed, not when perf exits."""
    cmd = ["stdbuf", "-oL"] + spdk_perf_cmd(d, target.port, args, seconds, ramp, nqn=target.nqn)
    errlog = os.path.join(OUT, "spdk-perf-%s.log" % label)
    samples, timers, lines = [], [], []

    def sample():
        try:
            samples.append(cpu_seconds(target.pid))
        except OSError:   # the target died: no CPU figure, the run's failure says why
            pass

    with open(errlog, "w") as err:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True, env=spdk_env(d))
        try:
            for line in p.stdout:
                lines.append(line)
                if line.startswith("Initialization complete") and not timers:
                    timers = [threading.Timer(ramp, sample), threading.Timer(ramp + seconds, sample)]
                    for t in timers:
                        t.start()
            if p.wait((seconds or 60) + (ramp or 0) + 120) == 0:
                for t in timers:   # perf may exit just before the window's end is read: the target idles then
                    t.join()
        finally:
            for t in timers:
                t.cancel()
            if p.poll() is None:
                p.kill()
                p.wait()
    text = "".join(lines)
    with open(errlog, "a") as err:
        err.write(text)
    if p.returncode != 0:
        log("spdk_nvme_perf %s failed (exit %d); see %s" % (label, p.returncode, errlog))
        return None
    out = parse_spdk_perf(text)
    if out is None:
        log("spdk_nvme_perf %s printed no Total line; see %s" % (label, errlog))
        return None
    ios = out["iops"] * seconds
    out["target_cpu_s_per_m_io"] = (samples[1] - samples[0]) / ios * 1e6 if len(samples) == 2 and ios else None
    return out


def parse_spdk_perf(text):
    """spdk_nvme_perf's report (app/spdk_nvme_perf/perf.c, print_performance): the "Total : IOPS MiB/s avg min max"
    line and, with -L, the "Summary latency data" cut-offs ("%9.5f%% : %9.3fus", check_cutoff)."""
    m = re.search(r"^\s*Total\s*:\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)", text, re.M)
    if not m:
        return None
    iops, mib = float(m.group(1)), float(m.group(2))
    out = {"iops": iops, "mb_per_s": mib * 1048576 / 1e6, "lat_avg_us": float(m.group(3))}
    pct = {}
    for pm in re.finditer(r"^\s*([\d.]+)%\s*:\s*([\d.]+)us", text, re.M):
        pct[float(pm.group(1))] = float(pm.group(2))
    for key, p in (("p50", 50.0), ("p99", 99.0), ("p99.9", 99.9)):
        if p in pct:
            out[key] = pct[p]
    return out


# ---------------------------------------------------------------------------------------------- nvmf4j

def java_env():
    env = dict(os.environ)
    if env.get("BENCH_JAVA_OPTS"):
        env["NVMF4J_JAVA_OPTS"] = " ".join(x for x in (env.get("NVMF4J_JAVA_OPTS", ""), env["BENCH_JAVA_OPTS"]) if x)
    return env


class Serve:
    """`nvmf4j serve --ram 1G` (softiwarp, or NVMe/TCP with transport="tcp") in its own process, optionally under
    taskset; bin/nvmf4j and taskset both exec, so the child's pid is the JVM's. namespace: serve's namespace
    options instead of --ram 1G; extra: more serve options (bench/disk.py: --file FILE and its --nvmf4j-arg
    pass-through)."""

    def __init__(self, port, name, cpus, namespace=("--ram", "1G"), extra=(), log_prefix="spdk-bench-serve-",
                 transport="rdma"):
        self.port = port
        self.nqn, self.transport = NQN_NVMF4J, transport
        self.logfile = os.path.join(OUT, "%s%s.log" % (log_prefix, name))
        self.log = open(self.logfile, "w")
        cmd = ([NVMF4J, "serve"] + list(namespace) + ["--nqn", NQN_NVMF4J] + transport_args(transport, "-t")
               + ["--listen", "127.0.0.1:%d" % port] + list(extra))
        if cpus is not None:
            cmd = ["taskset", "-c", cpus] + cmd
        self.p = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT, env=java_env(),
                                  start_new_session=True)
        self.pid = self.p.pid
        try:
            self.wait_listening()
        except BaseException:   # an interrupt while the JVM starts: nobody else holds it yet
            self.close()
            raise

    def wait_listening(self):
        deadline = time.time() + 120
        while time.time() < deadline:
            if self.p.poll() is not None:
                die("nvmf4j serve exited (%s); see %s" % (self.p.returncode, self.logfile))
            with open(self.logfile) as f:
                if "listening on" in f.read():
                    return
            time.sleep(0.2)
        die("nvmf4j serve did not listen within 120 s; see " + self.logfile)

    def close(self):
        terminate(self.p)
        self.log.close()


def transport_args(transport, option):
    """softiwarp for RDMA (the only provider on a machine without RDMA hardware); TCP takes no provider. option:
    serve's -t or perf's --transport."""
    return ["--provider", "softiwarp"] if transport == "rdma" else [option, transport]


def nvmf4j_perf_cmd(serve, args, seconds, ramp, label, cpus, html):
    """serve: the target, a Serve or an Spdk (port, nqn, transport, pid: --cpu-of reads its CPU)."""
    # over TCP, --disable-sqflow: reads then end with one C2HData carrying SUCCESS, as SPDK's target sends them to
    # spdk_nvme_perf by default (its c2h_success option); nvmf4j's target, as nvmet, does so only when asked
    sqflow = ["--disable-sqflow"] if serve.transport == "tcp" else []
    cmd = ([NVMF4J, "perf", "--traddr", "127.0.0.1", "--trsvcid", str(serve.port), "--nqn", serve.nqn]
           + transport_args(serve.transport, "--transport") + sqflow
           + ["-t", str(seconds), "-a", str(ramp), "--label", label, "--cpu-of", str(serve.pid), "--json"]
           + [str(a) for a in args])
    if html:
        cmd += ["--report", html, "--report-append"]
    if cpus is not None:
        cmd = ["taskset", "-c", cpus] + cmd
    return cmd


def nvmf4j_perf(serve, args, seconds, ramp, label, cpus, html):
    cmd = nvmf4j_perf_cmd(serve, args, seconds, ramp, label, cpus, html)
    errlog = os.path.join(OUT, "spdk-bench-perf-%s.log" % label)
    with open(errlog, "w") as err:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=err, text=True, env=java_env(),
                           timeout=seconds + ramp + 180)
    if r.returncode != 0:
        log("nvmf4j perf %s failed (exit %d); see %s" % (label, r.returncode, errlog))
        return None
    out = parse_nvmf4j_perf(r.stdout)
    if out is None:
        log("nvmf4j perf %s printed no JSON; see %s" % (label, errlog))
    return out


def parse_nvmf4j_perf(text):
    """The figures of `nvmf4j perf --json` (the first JSON object on stdout), or None."""
    m = re.search(r"^\{", text, re.M)
    if not m:
        return None
    d = json.JSONDecoder().raw_decode(text, m.start())[0]
    op = d["read"] if d["read"]["ios"] > 0 else d["write"]
    lat = op["latency_us"]
    cpu = d.get("cpu") or {}
    return {"iops": d["total"]["iops"], "mb_per_s": op["bytes"] / d["seconds"] / 1e6, "lat_avg_us": lat.get("avg"),
            "p50": lat.get("p50"), "p99": lat.get("p99"), "p99.9": lat.get("p99.9"),
            "target_cpu_s_per_m_io": cpu.get("target_cpu_seconds_per_million_ios"),
            "initiator_cpu_s_per_m_io": cpu.get("initiator_cpu_seconds_per_million_ios"), "perf_json": d}


# ---------------------------------------------------------------------------------------------- the sides

class Side:
    """A pair measured on every workload: a target (a key of TARGETS, shared by the sides that name it) and an
    initiator, spdk_nvme_perf (always on core 1, -c 0x2) or nvmf4j perf (under taskset -c cpus; None: no
    taskset). heading: the table's column; setup: the line the report's notes give it."""
    name = heading = target = setup = None
    initiator, cpus = "nvmf4j", "1"


class SpdkSide(Side):
    """SPDK's own pair, NVMe/TCP on both ends, target on core 0 and initiator on core 1: every ratio's reference."""
    name, heading, target, initiator = "spdk", "SPDK", "spdk", "spdk"
    setup = "nvmf_tgt -m 0x1 / spdk_nvme_perf -c 0x2"


class Nvmf4jPinned(Side):
    """nvmf4j over softiwarp in SPDK's layout: serve on core 0, perf on core 1."""
    name, heading, target = "nvmf4j-pinned", "nvmf4j pinned", "serve-pinned"
    setup = "taskset -c 0 nvmf4j serve --ram 1G (softiwarp) / taskset -c 1 nvmf4j perf"


class Nvmf4jUnpinned(Side):
    """nvmf4j over softiwarp wherever the scheduler puts its two JVMs on the 2 cores."""
    name, heading, target, cpus = "nvmf4j-unpinned", "nvmf4j unpinned", "serve-unpinned", None
    setup = "nvmf4j serve --ram 1G (softiwarp) / nvmf4j perf, no taskset"


class Nvmf4jTcpPinned(Side):
    """nvmf4j's NVMe/TCP target and host in SPDK's layout: the spdk side's transport and cores, so that its ratio
    compares the two stacks and nothing else."""
    name, heading, target = "nvmf4j-tcp-pinned", "nvmf4j tcp pinned", "serve-tcp"
    setup = "taskset -c 0 nvmf4j serve -t tcp --ram 1G / taskset -c 1 nvmf4j perf --transport tcp"


class SpdkPerfToNvmf4jTcp(Side):
    """spdk_nvme_perf against nvmf4j-tcp-pinned's target: beside spdk, nvmf4j's target with SPDK's host; beside
    nvmf4j-tcp-pinned, the two hosts against one target."""
    name, heading, target, initiator = "spdk-perf-to-nvmf4j-tcp", "SPDK perf -> nvmf4j tcp", "serve-tcp", "spdk"
    setup = "taskset -c 0 nvmf4j serve -t tcp --ram 1G / spdk_nvme_perf -c 0x2"


class Nvmf4jTcpToSpdk(Side):
    """nvmf4j perf --transport tcp against the spdk side's nvmf_tgt: beside spdk, nvmf4j's host with SPDK's
    target."""
    name, heading, target = "nvmf4j-tcp-to-spdk", "nvmf4j tcp -> SPDK", "spdk"
    setup = "nvmf_tgt -m 0x1 / taskset -c 1 nvmf4j perf --transport tcp"


SIDES = [SpdkSide, Nvmf4jPinned, Nvmf4jUnpinned, Nvmf4jTcpPinned, SpdkPerfToNvmf4jTcp, Nvmf4jTcpToSpdk]

# the nvmf4j targets: serve's log name, its taskset -c, its transport, the warm-up perf's taskset -c
SERVES = {
    "serve-pinned": ("pinned", "0", "rdma", "1"),
    "serve-unpinned": ("unpinned", None, "rdma", None),
    "serve-tcp": ("tcp-pinned", "0", "tcp", "1"),
}
TARGETS = ["spdk"] + list(SERVES)


def start_target(key, d):
    """Starts the target `key` names, warms it up and leaves it stopped (SIGSTOP) until a side of it runs. The
    warm-up writes every block of the 1 GiB namespace once: reads of never-written RAM are not what a disk does."""
    if key == "spdk":
        port = free_port()
        log("SPDK nvmf_tgt (core 0, --no-huge) on 127.0.0.1:%d, 1 GiB malloc bdev" % port)
        t = Spdk(d, port)
    else:
        name, cpus, transport, perf_cpus = SERVES[key]
        log("nvmf4j serve --ram 1G (%s), %s" % ("softiwarp" if transport == "rdma" else "NVMe/TCP",
                                                 "pinned to core 0 (perf on core 1)" if cpus else "unpinned"))
        t = Serve(free_port(), name, cpus, transport=transport)
    try:
        if key == "spdk":
            log("SPDK warm-up: the whole malloc bdev written once (128 KiB QD8, 8192 I/Os)")
            if spdk_perf(d, t.port, ["-q", "8", "-o", "131072", "-w", "write", "-d", "8192"], 60, 0, "warmup",
                         t.pid) is None:
                die("the SPDK warm-up write failed")
        else:
            log("%s warm-up: sequential 128 KiB writes over the 1 GiB namespace" % key)
            nvmf4j_perf(t, ["-q", 8, "-o", "128k", "-w", "write"], 4, 1, "warmup-nvmf4j-" + name, perf_cpus, None)
    except BaseException:
        t.close()
        raise
    stop(t.p)
    return t


def spdk_args(qd, size, rw, queues):
    """spdk_nvme_perf's: -q is per namespace, spread over the -P queue pairs; -L for the QD1 percentiles."""
    return (["-q", str(qd), "-o", str(size), "-w", rw] + (["-L"] if qd == 1 else [])
            + (["-P", str(queues)] if queues > 1 else []))


def nvmf4j_args(qd, size, rw, queues):
    """nvmf4j perf's: -q is per queue, so the total is split over the -P queues."""
    return ["-q", qd // queues, "-o", size, "-w", rw] + (["-P", queues] if queues > 1 else [])


PLACEMENT = re.compile(r"round trip ([\d.]+) ns")


def build_c_tool(name, library, what, hint=""):
    """bench/NAME.c compiled with gcc -O2 into bench/out/NAME (linked with `library`), or None where gcc is missing
    or the build fails; either way the log says that the run goes on without `what`."""
    exe = os.path.join(OUT, name)
    if shutil.which("gcc") is None:
        log("no %s: gcc is not installed" % what)
        return None
    r = subprocess.run(["gcc", "-O2", "-o", exe, os.path.join(ROOT, "bench", name + ".c"), library],
                       capture_output=True, text=True)
    if r.returncode != 0:
        log("no %s: bench/%s.c did not build%s:\n%s" % (what, name, hint, r.stderr[-500:]))
        return None
    return exe


def build_placement():
    """bench/placement.c built (build_c_tool), or None: the near-placement table is then left out."""
    return build_c_tool("placement", "-lpthread", "placement probe (and no near-placement table)")


def probe_placement(exe):
    """Core 0 to core 1 cache-line round trip in ns, now; None without the probe or when it fails."""
    if exe is None:
        return None
    try:
        r = subprocess.run([exe, "0", "1"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None   # a probe that cannot run leaves the run without its placement, not without its figures
    m = PLACEMENT.search(r.stdout)
    return float(m.group(1)) if r.returncode == 0 and m else None


def measure(side, target, d, a, workload, rnd, html):
    """One workload on one side; the figures, or None when the run failed."""
    label, qd, size, rw, queues = workload
    if side.initiator == "nvmf4j":
        return nvmf4j_perf(target, nvmf4j_args(qd, size, rw, queues), a.seconds, a.ramp,
                           "%s-%s-r%d" % (side.name, label, rnd), side.cpus, html)
    if side.target == "spdk":
        return spdk_perf(d, target.port, spdk_args(qd, size, rw, queues), a.seconds, a.ramp, "%s-r%d" % (label, rnd),
                         target.pid)
    return spdk_perf_windowed(d, target, spdk_args(qd, size, rw, queues), a.seconds, a.ramp,
                              "%s-%s-r%d" % (side.name, label, rnd))


def run_round(rnd, sides, targets, d, a, workloads, html_path, probe=None):
    """Every side in turn, its target alone running; odd rounds in the order of --sides, even ones reversed. Each
    measurement between two placement probes, taken while its target is stopped (it busy-polls core 0)."""
    order = sides if rnd % 2 == 1 else list(reversed(sides))
    res = {"round": rnd, "order": [s.name for s in order], "loadavg_start": loadavg()}
    for side in order:
        target = targets[side.target]
        res[side.name] = {}
        for w in workloads:
            before = probe_placement(probe)
            log("round %d %s %s%s" % (rnd, side.name, w[0],
                                      "" if before is None else " (placement probe %.0f ns)" % before))
            html = html_path if rnd == a.rounds else None   # the last round's nvmf4j perf runs in the report
            cont(target.p)
            try:
                r = measure(side, target, d, a, w, rnd, html)
            finally:
                stop(target.p)
            after = probe_placement(probe)
            if r is not None and before is not None and after is not None:
                r["placement_ns"] = [before, after]
                log("round %d %s %s: placement probe after %.0f ns" % (rnd, side.name, w[0], after))
            res[side.name][w[0]] = r
    res["loadavg_end"] = loadavg()
    return res


# ---------------------------------------------------------------------------------------------- the table

# figure, unit, workload label, key in a result, better
FIGURES = [
    ("4K randread QD1 p50", "us", "qd1-randread-4k", "p50", "lower"),
    ("4K randread QD1 p99", "us", "qd1-randread-4k", "p99", "lower"),
    ("4K randread QD1 p99.9", "us", "qd1-randread-4k", "p99.9", "lower"),
    ("4K randread QD32", "IOPS", "qd32-randread-4k", "iops", "higher"),
    ("4K randwrite QD32", "IOPS", "qd32-randwrite-4k", "iops", "higher"),
    ("128K seq read QD8", "MB/s", "seqread-128k", "mb_per_s", "higher"),
    ("128K seq write QD8", "MB/s", "seqwrite-128k", "mb_per_s", "higher"),
    ("4K randread QD32, 2 queues", "IOPS", "qd32-2q-randread-4k", "iops", "higher"),
    ("4K randwrite QD32, 2 queues", "IOPS", "qd32-2q-randwrite-4k", "iops", "higher"),
    ("target CPU s / M I/O, 4K randread QD1", "s", "qd1-randread-4k", "target_cpu_s_per_m_io", "lower"),
    ("target CPU s / M I/O, 4K randread QD32", "s", "qd32-randread-4k", "target_cpu_s_per_m_io", "lower"),
    ("target CPU s / M I/O, 4K randwrite QD32", "s", "qd32-randwrite-4k", "target_cpu_s_per_m_io", "lower"),
    ("target CPU s / M I/O, 128K seq read QD8", "s", "seqread-128k", "target_cpu_s_per_m_io", "lower"),
    ("target CPU s / M I/O, 128K seq write QD8", "s", "seqwrite-128k", "target_cpu_s_per_m_io", "lower"),
    ("target CPU s / M I/O, 4K randread QD32, 2 queues", "s", "qd32-2q-randread-4k", "target_cpu_s_per_m_io",
     "lower"),
]


def median_of(results, side, label, key):
    xs = [r[side][label][key] for r in results
          if r.get(side, {}).get(label) and r[side][label].get(key) is not None]
    return (statistics.median(xs), xs) if xs else (None, [])


def near_limit(results):
    """Twice the shortest placement probe of the run: a run whose two probes are both at most this was near."""
    probes = [p for r in results for v in r.values() if isinstance(v, dict)
              for m in v.values() if isinstance(m, dict) for p in m.get("placement_ns", [])]
    return 2 * min(probes) if probes else None


def near_rounds(results, sides, label, limit):
    """The rounds in which every side's run of `label` was near (both of its probes within `limit`)."""
    def near(r, side):
        m = r.get(side.name, {}).get(label)
        return bool(m) and len(m.get("placement_ns", [])) == 2 and max(m["placement_ns"]) <= limit
    return [r for r in results if all(near(r, s) for s in sides)]


def table(results, labels, sides, limit=None):
    """A row per figure: each side's median and rounds, and every other side's ratio to spdk (None without it).
    With `limit`, over only the rounds in which every side ran near (near_rounds); "rounds" says how many."""
    rows = []
    for figure, unit, label, key, better in FIGURES:
        if label not in labels:
            continue
        row = {"figure": figure, "unit": unit, "workload": label, "better": better}
        picked = results if limit is None else near_rounds(results, sides, label, limit)
        row["rounds"] = len(picked)
        for side in sides:
            m, xs = median_of(picked, side.name, label, key)
            row[side.name] = m
            row[side.name + "_rounds"] = xs
        for side in (x for x in sides if x is not SpdkSide):
            s, n = row.get("spdk"), row[side.name]
            row["ratio_" + side.name] = n / s if s and n is not None else None
        rows.append(row)
    return rows


def fmt(v, unit):
    if v is None:
        return "-"
    if unit in ("IOPS", "MB/s"):
        return "{:,.0f}".format(v)
    return "%.1f" % v if v < 1000 else "{:,.0f}".format(v)


def columns(sides, with_rounds=False):
    """The table's columns, (heading, the cell of a row): a side's median, and after each side but spdk its ratio
    to spdk when spdk ran; with_rounds, first the number of rounds the medians are of."""
    cols = [("figure", lambda r: r["figure"]), ("unit", lambda r: r["unit"])]
    if with_rounds:
        cols.append(("rounds", lambda r: str(r["rounds"])))
    for side in sides:
        cols.append((side.heading, lambda r, n=side.name: fmt(r[n], r["unit"])))
        if side is not SpdkSide and SpdkSide in sides:
            cols.append(("ratio", lambda r, k="ratio_" + side.name: "-" if r[k] is None else "%.2fx" % r[k]))
    return cols


def table_lines(rows, sides, with_rounds=False):
    cols = columns(sides, with_rounds)
    head = [h for h, _ in cols]
    lines = [[cell(r) for _, cell in cols] for r in rows]
    w = [max(len(str(x)) for x in col) for col in zip(head, *lines)]
    f = lambda cs: "  ".join((c.ljust(w[i]) if i == 0 else c.rjust(w[i])) for i, c in enumerate(cs))
    return [f(head), "  ".join("-" * x for x in w)] + [f(l) for l in lines]


def html_block(path, heading, notes, rows, sides):
    """The table on top of the HTML page nvmf4j perf --report wrote (the same place bench/run puts its own); a page
    of bench/run given with --html gains this block beside its own."""
    cols = columns(sides)
    trs = ["<tr>" + "".join("<th>%s</th>" % htmlmod.escape(h) for h, _ in cols) + "</tr>"]
    for r in rows:
        cells = [htmlmod.escape(cell(r)) for _, cell in cols]
        trs.append("<tr><td style=\"text-align:left\">" + "</td><td>".join(cells) + "</td></tr>")
    block = ("<h2>bench/spdk.sh: SPDK NVMe/TCP beside nvmf4j on the same machine</h2>\n<p>%s</p>\n%s<table>\n%s\n"
             "</table>\n" % (htmlmod.escape(heading), "".join("<p>%s</p>\n" % htmlmod.escape(n) for n in notes),
                             "\n".join(trs)))
    if os.path.exists(path):
        page = open(path).read()
        marker = "<h1>nvmf4j perf</h1>\n"
        page = page.replace(marker, marker + block, 1) if marker in page else page + block
    else:
        page = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>bench/spdk.sh</title></head><body>\n%s" \
               "</body></html>\n" % block
    with open(path, "w") as f:
        f.write(page)


# ---------------------------------------------------------------------------------------------- the run

def parse_args():
    p = argparse.ArgumentParser(prog="bench/spdk.sh", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--spdk", required=True, metavar="DIR", help="SPDK build directory (bench/spdk-build.sh OUT_DIR)")
    p.add_argument("--sides", metavar="LIST", default=",".join(s.name for s in SIDES),
                   help="comma-separated sides to measure, always run in this order (round 2 reversed): %(default)s "
                   "(default: all)")
    p.add_argument("--rounds", type=int, default=3, help="rounds; the table gives each figure's median (default 3)")
    p.add_argument("--seconds", type=int, default=8, help="measured seconds per run (default 8)")
    p.add_argument("--ramp", type=int, default=2, help="warm-up seconds before each window, -a of both perfs (default 2)")
    p.add_argument("--only", metavar="REGEX", help="only the workloads whose label matches (e.g. qd32)")
    p.add_argument("--json", help="JSON output (default bench/out/spdk-<date>.json)")
    p.add_argument("--html", help="HTML page (default bench/out/spdk-<date>.html); an existing bench/run page gains "
                   "the table and this run's nvmf4j perf runs")
    a = p.parse_args()
    names = [x.strip() for x in a.sides.split(",") if x.strip()]
    unknown = [x for x in names if x not in [s.name for s in SIDES]]
    if unknown or not names:
        die("--sides: unknown side %s; the sides are %s" % (",".join(unknown) or "(none given)",
                                                             ",".join(s.name for s in SIDES)))
    a.sides = [s for s in SIDES if s.name in names]
    if a.rounds < 1:
        die("--rounds must be >= 1")
    return a


def main():
    a = parse_args()
    d = os.path.realpath(a.spdk)
    for b in ("build/bin/nvmf_tgt", "build/bin/spdk_nvme_perf", "scripts/rpc.py"):
        if not os.path.exists(os.path.join(d, b)):
            die("%s/%s is missing: build SPDK with bench/spdk-build.sh SRC %s" % (d, b, d))
    os.makedirs(OUT, exist_ok=True)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    json_path = a.json or os.path.join(OUT, "spdk-%s.json" % stamp)
    html_path = a.html or os.path.join(OUT, "spdk-%s.html" % stamp)
    workloads = [w for w in WORKLOADS if not a.only or re.search(a.only, w[0])]
    t0 = time.time()
    up_before, load_before = uptime_line(), loadavg()
    log("uptime before: " + up_before)
    r = subprocess.run([NVMF4J, "modules"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        die("bin/nvmf4j modules failed (the CLI does not build):\n" + r.stderr[-2000:])

    probe = build_placement()
    targets, results = {}, []
    try:
        for key in TARGETS:
            if any(s.target == key for s in a.sides):
                targets[key] = start_target(key, d)
        for rnd in range(1, a.rounds + 1):
            results.append(run_round(rnd, a.sides, targets, d, a, workloads, html_path, probe))
    finally:
        for t in targets.values():
            t.close()

    up_after, load_after = uptime_line(), loadavg()
    rows = table(results, {w[0] for w in workloads}, a.sides)
    limit = near_limit(results)
    near = table(results, {w[0] for w in workloads}, a.sides, limit) if limit is not None else []
    heading = ("bench/spdk.sh, %s, %d CPUs, %d rounds (medians), %d s per run (+%d s warm-up), load %.2f before / "
               "%.2f after" % (stamp, os.cpu_count(), a.rounds, a.seconds, a.ramp, load_before[0], load_after[0]))
    notes = (["SPDK v%s: nvmf_tgt -m 0x1 --no-huge, NVMe/TCP, malloc bdev 1 GiB / 512 B; spdk_nvme_perf -c 0x2 --no-huge"
              % spdk_version(d)]
             + ["%s: %s" % (s.heading, s.setup) for s in a.sides]
             + (["ratio = side / SPDK"] if SpdkSide in a.sides and len(a.sides) > 1 else [])
             + ["uptime before: " + up_before, "uptime after:  " + up_after])
    print()
    print(heading)
    for n in notes:
        print(n)
    for line in table_lines(rows, a.sides):
        print(line)
    if near:
        print()
        print("Only the rounds in which every side's run was near (both placement probes <= %.0f ns):" % limit)
        for line in table_lines(near, a.sides, with_rounds=True):
            print(line)
    for r in results:   # strip the perf JSON of nvmf4j runs to keep the file readable, keep the figures
        for s in a.sides:
            for v in r.get(s.name, {}).values():
                if v:
                    v.pop("perf_json", None)
    with open(json_path, "w") as f:
        json.dump({"date": stamp, "heading": heading, "notes": notes, "spdk_dir": d,
                   "sides": [s.name for s in a.sides], "rounds": a.rounds,
                   "seconds": a.seconds, "ramp": a.ramp, "uptime_before": up_before, "uptime_after": up_after,
                   "loadavg_before": load_before, "loadavg_after": load_after, "table": rows,
                   "near_limit_ns": limit, "table_near": near, "results": results,
                   "wall_seconds": time.time() - t0}, f, indent=2)
    html_block(html_path, heading, notes, rows, a.sides)
    log("wrote %s and %s (%.0f s)" % (json_path, html_path, time.time() - t0))
    missing = [r["figure"] for r in rows if any(r[s.name] is None for s in a.sides)]
    if missing:
        log("no figure (a run failed) for: " + ", ".join(missing))
    return 1 if missing else 0


def spdk_version(d):
    try:
        text = open(os.path.join(d, "include/spdk/version.h")).read()
        v = [re.search(r"#define SPDK_VERSION_%s\s+(\d+)" % k, text).group(1) for k in ("MAJOR", "MINOR")]
        return "%s.%02d" % (v[0], int(v[1]))
    except (OSError, AttributeError):
        return "?"


if __name__ == "__main__":
    sys.exit(main())
