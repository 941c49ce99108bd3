#!/usr/bin/env python3
"""One file of a real disk served three ways, in one run: fio on the file itself (the limit), SPDK's NVMe/TCP
target over an AIO bdev of the file (the peer), `nvmf4j serve --file` (softiwarp) on it; and beside them the TCP
floor: bench/tcpdisk.c, the least any target can do per I/O with the command on a TCP socket and the data on the
file through io_uring, one polling core each side as the targets and their hosts have.

  bench/disk.sh [--dir DIR | --file PATH] [--spdk DIR] [--rounds 3] [--seconds 8] [--ramp 2]
                [--nvmf4j-arg ARG]... [--reader-arg ARG]... [--load-arg ARG]... [--load-cpu N] [--load-nice N]
                [--floor-mode poll|wait] [--only REGEX] [--keep-file] [--json FILE]

The file: --file PATH (an existing file or block device: its contents are overwritten by the write workloads),
or by default a 2 GiB file of random data created in --dir (default /var/tmp/nvmf4j-disk-bench; never put it in
the repository) and removed at the end unless --keep-file (a kept file of the right size is reused).
Before the first round the whole file is read once (fio, 1 MiB, direct), so no side is the first to touch it
(not a block device, nor a file over 16 GiB).
Sides, each round in alternating order (round 2 reverses round 1's), only the measured one running:
  * fio: `fio --ioengine=io_uring --direct=1` on the file, on the targets' core;
  * fio busy: the same fio with both cores as busy as a polling target and its host keep them: a busy loop on the
    hosts' core, and at queue depth 1 fio polls its completions (--iodepth_batch_complete_min=0) as a polling
    target does. On a virtual machine whose disk is emulated within the machine's CPU quota this is the disk a
    target and host in one machine can have (bench/README: "Two busy cores and the virtual disk");
  * SPDK (only with --spdk DIR, a build of bench/spdk-build.sh): nvmf_tgt on the targets' core (--no-huge), TCP
    transport, `bdev_aio_create FILE Aio0 512` (libaio, O_DIRECT), listener on 127.0.0.1; spdk_nvme_perf on the
    hosts' core;
  * nvmf4j: `nvmf4j serve --file FILE` (softiwarp, plus every --nvmf4j-arg, e.g. `--nvmf4j-arg=--backend-io
    --nvmf4j-arg=uring`) under taskset on the targets' core; `nvmf4j perf` on the hosts' core;
  * floor (when gcc and liburing-dev build bench/tcpdisk.c): its server on the targets' core, its client on the
    hosts' core, 16-byte requests and answers over loopback TCP, O_DIRECT io_uring with fixed buffers and file
    (1 s warm-up, not --ramp); no latency-under-load pair. --floor-mode wait has both its sides sleep in poll(2)
    when idle instead of spinning.
The targets of the sides not being measured are stopped with SIGSTOP (SPDK's reactor busy-polls its core).
Cores: the targets (and fio, which does what their disk I/O does) run on the core that took most of the disk's
interrupts (its MSI vectors in /proc/interrupts), the hosts on the first other core; --target-cpu N chooses.
A virtual disk here completes every request on one core, and a request submitted from the other core came back
later (fio QD1 p50 41 us on the interrupts' core, 50 us on the other, 66 us there beside a busy core).
Workloads (-q -o -w alike on every side): 4 KiB randread QD1 (p50, p99, IOPS), 4 KiB randread and randwrite
QD32, 128 KiB sequential read QD8 (IOPS, MB/s = 10^6 bytes/s); and latency under load: a host's 4 KiB randread
QD1 alone, then the same beside a second host writing 1 MiB sequentially at QD4 into the same namespace (perf has
no offset option; fio: a second job on the same file), the second host on the hosts' core (--load-cpu), at the nice
level of --load-nice (default 0; its session's autogroup gets that nice too). Two hosts on one core take
scheduler slices from each other, which two hosts on their own machines would not: `--load-nice 19` leaves the
measured host's core to it whenever it is runnable (the second host runs on what it leaves), so that the pair
measures what the target and the disk do to the reader; the second host's MB/s in the measured window says how
much it still wrote.
The last rows give CPU per I/O: fio's own (user + system over its run: the kernel's cost of the I/O, which a target
pays on its core too) and each target process's (one polling core over its IOPS). The table gives the median of the
rounds per figure, nvmf4j/fio and nvmf4j/SPDK; the JSON in bench/out/ keeps
every round, the disk (lsblk model and size, file system) and the load before and after.
"""
import argparse
import datetime
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import spdk as sp  # noqa: E402  (bench/spdk.py: the SPDK target, both perfs and their parsers)

OUT = sp.OUT
DEFAULT_DIR = "/var/tmp/nvmf4j-disk-bench"
FILE_BYTES = 2 << 30
# The targets' core and the hosts' core: main() puts the targets (and fio, which does what their disk I/O does) on
# the core that takes the disk's interrupts, unless --target-cpu says otherwise (place_cores).
TARGET_CPU, HOST_CPU = "0", "1"
WARM_READ_MAX = 16 << 30   # a larger file, or a block device, is not read whole before the first round

# label, queue depth, I/O size, pattern
WORKLOADS = [
    ("qd1-randread-4k", 1, 4096, "randread"),
    ("qd32-randread-4k", 32, 4096, "randread"),
    ("qd32-randwrite-4k", 32, 4096, "randwrite"),
    ("seqread-128k", 8, 131072, "read"),
]
# latency under load: the measured host, and the second host beside it
LAT = ("lat-qd1-randread-4k", 1, 4096, "randread")
LOAD = ("load-seqwrite-1m", 4, 1048576, "write")
SIDES = ["fio", "fio-busy", "floor", "spdk", "nvmf4j"]


sp.LOG_PREFIX = "disk-bench"
log = sp.log
die = sp.die


# ---------------------------------------------------------------------------------------------- the file and its disk

def make_file(path):
    """FILE_BYTES of random data, written through and synced: every block allocated, nothing left to compress."""
    log("creating %s: %d MiB of random data" % (path, FILE_BYTES >> 20))
    chunk = 8 << 20
    with open(path + ".tmp", "wb") as f:
        for _ in range(FILE_BYTES // chunk):
            f.write(os.urandom(chunk))
        f.flush()
        os.fsync(f.fileno())
    os.rename(path + ".tmp", path)


def sh(*cmd):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
        return r.stdout.strip() if r.returncode == 0 else ""
    except (OSError, subprocess.TimeoutExpired):
        return ""


def describe_disk(path):
    """What holds the file: the block device (lsblk model, size, rotational, transport, driver, scheduler) and the
    file system, as far as this machine tells."""
    st = os.stat(path)
    info = {"path": path, "bytes": os.path.getsize(path) if not _is_block(st) else None}
    if _is_block(st):
        dev = os.path.realpath(path)
        info["filesystem"] = "none (block device)"
    else:
        dev, fstype = (sh("findmnt", "-n", "-o", "SOURCE,FSTYPE", "-T", path).split() + ["?", "?"])[:2]
        info["filesystem"] = "%s on %s (%s)" % (fstype, dev, sh("findmnt", "-n", "-o", "TARGET", "-T", path))
    parent = sh("lsblk", "-n", "-d", "-o", "PKNAME", dev) if dev.startswith("/dev/") else ""
    disk = "/dev/" + parent if parent else dev
    info["device"] = disk
    if disk.startswith("/dev/"):
        name = os.path.basename(disk)
        cols = sh("lsblk", "-n", "-d", "-P", "-o", "MODEL,SIZE,ROTA,TRAN,VENDOR", disk)
        info.update({k.lower(): v.strip() for k, v in re.findall(r'(\w+)="([^"]*)"', cols)})
        drv = "/sys/class/block/%s/device/driver" % name
        info["driver"] = os.path.basename(os.path.realpath(drv)) if os.path.exists(drv) else ""
        try:
            info["scheduler"] = open("/sys/class/block/%s/queue/scheduler" % name).read().strip()
        except OSError:
            pass
    return info


def _is_block(st):
    import stat
    return stat.S_ISBLK(st.st_mode)


def disk_line(info):
    model = info.get("model") or "(no model: %s)" % (info.get("driver") or "?")
    return "disk: %s %s, %s, rotational=%s, scheduler %s; file system: %s; file %s%s" % (
        info.get("device"), model, info.get("size", "?"), info.get("rota", "?"), info.get("scheduler", "?"),
        info.get("filesystem"), info["path"],
        " (%d MiB)" % (info["bytes"] >> 20) if info.get("bytes") else "")


# ---------------------------------------------------------------------------------------------- fio

def fio_job(name, qd, size, rw, polled=False):
    """One fio job; polled: fio reaps its completions without waiting for them (io_uring_enter with min_complete 0,
    in a loop), as a polling target does. Only at queue depth 1: at 32 fio then keeps only a few I/Os in flight."""
    return (["--name=" + name, "--rw=" + rw, "--bs=%d" % size, "--iodepth=%d" % qd]
            + (["--iodepth_batch_complete_min=0"] if polled and qd == 1 else []))


def fio_run(path, jobs, seconds, ramp, label):
    """fio on the file, every job in its own section (new_group), pinned to the targets' core; {job name: figures}."""
    cmd = ["taskset", "-c", TARGET_CPU, "fio", "--output-format=json", "--ioengine=io_uring", "--direct=1",
           "--filename=" + path, "--lat_percentiles=1", "--percentile_list=50:99:99.9", "--randrepeat=0",
           "--norandommap"]
    if seconds:   # else: once over the whole file
        cmd += ["--time_based", "--runtime=%d" % seconds, "--ramp_time=%d" % ramp]
    for j in jobs:
        cmd += j
    errlog = os.path.join(OUT, "disk-bench-fio-%s.log" % label)
    with open(errlog, "w") as err:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=err, text=True, timeout=(seconds or 600) + ramp + 120)
    with open(errlog, "a") as err:
        err.write(r.stdout)
    if r.returncode != 0:
        log("fio %s failed (exit %d); see %s" % (label, r.returncode, errlog))
        return None
    try:
        d = json.loads(r.stdout[r.stdout.index("{"):])
    except ValueError:
        log("fio %s printed no JSON; see %s" % (label, errlog))
        return None
    out = {}
    for job in d["jobs"]:
        op = job["read"] if job["read"]["total_ios"] > 0 else job["write"]
        pct = (op.get("lat_ns") or {}).get("percentile") or (op.get("clat_ns") or {}).get("percentile") or {}
        get = lambda p: next((v / 1000 for k, v in pct.items() if abs(float(k) - p) < 1e-6), None)
        # fio's own CPU (user + system, % of its run time) per I/O: the kernel's cost of this I/O on this disk,
        # which a target pays on its core too, beside the fabric's
        cpu = (job.get("usr_cpu", 0) + job.get("sys_cpu", 0)) / 100.0
        out[job["jobname"]] = {"iops": op["iops"], "mb_per_s": op["bw_bytes"] / 1e6,
                               "lat_avg_us": op["lat_ns"]["mean"] / 1000, "p50": get(50.0), "p99": get(99.0),
                               "p99.9": get(99.9), "cpu_busy": cpu,
                               "cpu_us_per_io": cpu / op["iops"] * 1e6 if op["iops"] else None}
    return out


# ---------------------------------------------------------------------------------------------- the sides

def measure_fio(path, a, rnd, busy=False):
    """fio's figures; busy: with the hosts' core spinning and the QD1 jobs polled (the "fio busy" side)."""
    side = "fio-busy" if busy else "fio"
    spinner = None
    if busy:
        # a pure user-space loop: it takes the core as a polling host does, and makes no system call
        spinner = subprocess.Popen(["taskset", "-c", HOST_CPU, "sh", "-c", "while :; do :; done"],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        return fio_workloads(path, a, rnd, side, busy)
    finally:
        if spinner is not None:
            spinner.kill()
            spinner.wait()


def fio_workloads(path, a, rnd, side, busy):
    """Every workload of one fio side (fio or fio busy) in this round: {label: figures}."""
    res = {}
    for label, qd, size, rw in workloads_of(a):
        log("round %d %s %s" % (rnd, side, label))
        r = fio_run(path, [fio_job(label, qd, size, rw, busy)], a.seconds, a.ramp, "%s-%s-r%d" % (side, label, rnd))
        res[label] = r and r.get(label)
    if want_lat(a):
        log("round %d %s %s alone" % (rnd, side, LAT[0]))
        r = fio_run(path, [fio_job(LAT[0], *LAT[1:], polled=busy)], a.seconds, a.ramp,
                    "%s-%s-alone-r%d" % (side, LAT[0], rnd))
        res["lat-alone"] = r and r.get(LAT[0])
        log("round %d %s %s beside %s" % (rnd, side, LAT[0], LOAD[0]))
        # the writer in a job of its own: fio pins both to one core, as the other sides' two hosts share one
        r = fio_run(path, [fio_job(LAT[0], *LAT[1:], polled=busy),
                           fio_job(LOAD[0], *LOAD[1:]) + ["--nice=%d" % a.load_nice]],
                    a.seconds, a.ramp,
                    "%s-%s-loaded-r%d" % (side, LAT[0], rnd))
        res["lat-loaded"] = r and r.get(LAT[0])
        res["load"] = r and r.get(LOAD[0])
        if res["load"]:
            res["load"]["mb_per_s_window"] = res["load"]["mb_per_s"]  # both jobs run the same window
    return res


def build_floor():
    """bench/tcpdisk.c built into bench/out (spdk.build_c_tool), or None (said in the log)."""
    return sp.build_c_tool("tcpdisk", "-luring", "TCP floor", " (Debian: apt-get install liburing-dev)")


TCPDISK = re.compile(r"([\d.]+) IOPS, ([\d.]+) MB/s, p50 ([\d.]+) us, p99 ([\d.]+) us, "
                     r"server CPU per I/O ([\d.]+) us")


def measure_floor(exe, path, a, rnd):
    res = {}
    for label, qd, size, rw in workloads_of(a):
        log("round %d floor %s" % (rnd, label))
        errlog = os.path.join(OUT, "disk-bench-floor-%s-r%d.log" % (label, rnd))
        try:
            r = subprocess.run([exe, path, rw, str(size), str(qd), str(a.seconds), TARGET_CPU, HOST_CPU, a.floor_mode],
                               capture_output=True, text=True, timeout=a.seconds + 60)
            out, err, rc = r.stdout, r.stderr, r.returncode
        except subprocess.TimeoutExpired:
            out, err, rc = "", "timed out", None
        with open(errlog, "w") as f:
            f.write(out + err)
        m = TCPDISK.search(out) if rc == 0 else None
        if m is None:
            log("floor %s failed (exit %s); see %s" % (label, rc, errlog))
        res[label] = m and {"iops": float(m[1]), "mb_per_s": float(m[2]), "p50": float(m[3]), "p99": float(m[4]),
                            "cpu_us_per_io": float(m[5])}
    return res


def spdk_args(qd, size, rw):
    return ["-q", str(qd), "-o", str(size), "-w", rw] + (["-L"] if qd == 1 else [])


def measure_spdk(spdk, d, port, a, rnd):
    res = {}
    for label, qd, size, rw in workloads_of(a):
        log("round %d spdk %s" % (rnd, label))
        res[label] = sp.spdk_perf(d, port, spdk_args(qd, size, rw), a.seconds, a.ramp,
                                  "disk-%s-r%d" % (label, rnd), spdk.pid, core_mask(HOST_CPU))
    if want_lat(a):
        log("round %d spdk %s alone" % (rnd, LAT[0]))
        res["lat-alone"] = sp.spdk_perf(d, port, spdk_args(*LAT[1:]), a.seconds, a.ramp,
                                        "disk-%s-alone-r%d" % (LAT[0], rnd), spdk.pid, core_mask(HOST_CPU))
        log("round %d spdk %s beside %s" % (rnd, LAT[0], LOAD[0]))
        load = niced(a, sp.spdk_perf_cmd(d, port, spdk_args(*LOAD[1:]), a.seconds + a.ramp + LOAD_LEAD, 0,
                                         core_mask=core_mask(a.load_cpu)))
        res["lat-loaded"], res["load"] = beside(
            a, load, sp.spdk_env(d), "disk-spdk-%s-r%d" % (LOAD[0], rnd), sp.parse_spdk_perf,
            lambda: sp.spdk_perf(d, port, spdk_args(*LAT[1:]), a.seconds, a.ramp,
                                 "disk-%s-loaded-r%d" % (LAT[0], rnd), spdk.pid, core_mask(HOST_CPU)))
    return res


def measure_nvmf4j(serve, a, rnd):
    res = {}
    for label, qd, size, rw in workloads_of(a):
        log("round %d nvmf4j %s" % (rnd, label))
        res[label] = sp.nvmf4j_perf(serve, ["-q", qd, "-o", size, "-w", rw], a.seconds, a.ramp,
                                    "disk-nvmf4j-%s-r%d" % (label, rnd), HOST_CPU, None)
    if want_lat(a):
        qd, size, rw = LAT[1:]
        log("round %d nvmf4j %s alone" % (rnd, LAT[0]))
        res["lat-alone"] = sp.nvmf4j_perf(serve, ["-q", qd, "-o", size, "-w", rw] + a.reader_arg, a.seconds,
                                          a.ramp, "disk-nvmf4j-%s-alone-r%d" % (LAT[0], rnd), HOST_CPU, None)
        log("round %d nvmf4j %s beside %s" % (rnd, LAT[0], LOAD[0]))
        lq, ls, lw = LOAD[1:]
        load = niced(a, sp.nvmf4j_perf_cmd(serve, ["-q", lq, "-o", ls, "-w", lw] + a.load_arg,
                                           a.seconds + a.ramp + LOAD_LEAD, 0, "disk-nvmf4j-%s-r%d" % (LOAD[0], rnd),
                                           a.load_cpu, None))
        res["lat-loaded"], res["load"] = beside(
            a, load, sp.java_env(), "disk-nvmf4j-%s-r%d" % (LOAD[0], rnd), sp.parse_nvmf4j_perf,
            lambda: sp.nvmf4j_perf(serve, ["-q", qd, "-o", size, "-w", rw] + a.reader_arg, a.seconds, a.ramp,
                                   "disk-nvmf4j-%s-loaded-r%d" % (LAT[0], rnd), HOST_CPU, None))
    return res


# The second host starts first and runs this many seconds longer than the measured host's ramp + window, so that it
# writes during the whole window (the measured host's own start-up, a JVM's or DPDK's, falls inside the lead).
LOAD_LEAD = 8
LOAD_START = 3   # seconds between starting the second host and the measured one (its connect, its JVM)


def autogroup_nice(pid, nice):
    """Gives the second host's session the nice level of --load-nice. It runs in a session of its own (so that it
    can be stopped as a group), and with kernel.sched_autogroup_enabled each session is an autogroup that the
    scheduler shares the CPU with as one task at the autogroup's nice level, whatever the nice of its threads: a
    nice-19 second host in its own session took ~700 MiB/s of writes from a core that a measured host spinning at
    nice 0 shared with it, against ~150 MiB/s in the measured host's session. fio's second job runs in fio's
    session, where its nice applies as set."""
    if nice:
        try:
            with open("/proc/%d/autogroup" % pid, "w") as f:
                f.write(str(nice))
        except OSError:
            pass  # no autogroups in this kernel (or disabled): the thread's nice is the one that counts


def niced(a, cmd):
    """The second host's command at --load-nice (fio sets its job's own nice)."""
    return ["nice", "-n", str(a.load_nice)] + cmd if a.load_nice else cmd


def beside(a, load_cmd, env, label, parse, measure):
    """Runs load_cmd (the second host) in the background, measure() beside it, and returns (measured, load)."""
    errlog = os.path.join(OUT, "%s.log" % label)
    err = open(errlog, "w")
    p = subprocess.Popen(load_cmd, stdout=subprocess.PIPE, stderr=err, text=True, env=env, start_new_session=True)
    autogroup_nice(p.pid, a.load_nice)
    time.sleep(LOAD_START)
    measured = measure() if p.poll() is None else None
    if measured is None and p.poll() is not None:
        log("the second host %s exited before the measured one ran (exit %s); see %s" % (label, p.returncode, errlog))
    try:
        out, _ = p.communicate(timeout=LOAD_LEAD + 180)
    except Exception:
        sp.terminate(p)
        out = ""
    err.write(out or "")
    err.close()
    load = parse(out or "") if p.returncode == 0 else None
    if load is not None:
        load.pop("perf_json", None)
        load["mb_per_s_window"] = window_rate(errlog, LOAD_START + a.ramp, a.seconds)
    if measured is not None and load is None:
        log("the second host %s reported nothing (exit %s); see %s" % (label, p.returncode, errlog))
    return measured, load


def window_rate(errlog, skip, seconds):
    """The second host's MB/s over the measured host's window, from `nvmf4j perf`'s progress lines ("perf [  k/N s]
    write: ... X MiB/s", one per second of its run): seconds skip+1 .. skip+seconds, the measured host having
    started LOAD_START s after it and ramped for --ramp s (each JVM's own start-up, about as long, cancels out).
    Its whole-run figure also counts the seconds it wrote alone; this one is what the measured host ran beside
    (a nice-19 second host on the measured host's core wrote 3-17 MiB/s there, 730 MiB/s alone). None when the
    log has no such lines (SPDK's perf prints none)."""
    try:
        text = open(errlog).read().replace("\r", "\n")
    except OSError:
        return None
    rates = {}
    for m in re.finditer(r"perf \[\s*(\d+)/\d+ s\] \w+: [\d,]+ IOPS, ([\d.]+) MiB/s", text):
        rates[int(m.group(1))] = float(m.group(2)) * (1 << 20) / 1e6
    window = [rates[k] for k in range(skip + 1, skip + seconds + 1) if k in rates]
    return statistics.mean(window) if len(window) == seconds else None


def workloads_of(a):
    return [w for w in WORKLOADS if not a.only or re.search(a.only, w[0])]


def want_lat(a):
    return not a.only or re.search(a.only, LAT[0])


# ---------------------------------------------------------------------------------------------- the table

# figure, unit, result key (workload label or lat-alone / lat-loaded / load), figure key, better
FIGURES = [
    ("4K randread QD1 p50", "us", "qd1-randread-4k", "p50", "lower"),
    ("4K randread QD1 p99", "us", "qd1-randread-4k", "p99", "lower"),
    ("4K randread QD1", "IOPS", "qd1-randread-4k", "iops", "higher"),
    ("4K randread QD32", "IOPS", "qd32-randread-4k", "iops", "higher"),
    ("4K randread QD32", "MB/s", "qd32-randread-4k", "mb_per_s", "higher"),
    ("4K randwrite QD32", "IOPS", "qd32-randwrite-4k", "iops", "higher"),
    ("4K randwrite QD32", "MB/s", "qd32-randwrite-4k", "mb_per_s", "higher"),
    ("128K seq read QD8", "IOPS", "seqread-128k", "iops", "higher"),
    ("128K seq read QD8", "MB/s", "seqread-128k", "mb_per_s", "higher"),
    ("QD1 4K randread p50, alone", "us", "lat-alone", "p50", "lower"),
    ("QD1 4K randread p99, alone", "us", "lat-alone", "p99", "lower"),
    ("QD1 4K randread p50, beside 1M writes QD4", "us", "lat-loaded", "p50", "lower"),
    ("QD1 4K randread p99, beside 1M writes QD4", "us", "lat-loaded", "p99", "lower"),
    ("  the second host's 1M writes QD4, whole run", "MB/s", "load", "mb_per_s", "higher"),
    ("  the second host's 1M writes QD4, in the window", "MB/s", "load", "mb_per_s_window", "higher"),
    # where the CPU of an I/O goes: fio's core (its own process, user + system) and the targets' core (whole process,
    # spinning included: a polling target is 100 % busy, so this is one core over its IOPS, an upper bound on work)
    ("CPU per I/O, 4K randread QD32", "us", "qd32-randread-4k", "cpu_us_per_io", "lower"),
    ("CPU per I/O, 4K randwrite QD32", "us", "qd32-randwrite-4k", "cpu_us_per_io", "lower"),
    ("CPU per I/O, 128K seq read QD8", "us", "seqread-128k", "cpu_us_per_io", "lower"),
]


def table(results):
    rows = []
    for figure, unit, key, fkey, better in FIGURES:
        row = {"figure": figure, "unit": unit, "result": key, "key": fkey, "better": better}
        for side in SIDES:
            # the targets' CPU per I/O is perf's target_cpu_s_per_m_io (seconds per million = us per I/O)
            k = lambda fig: fkey if fig.get(fkey) is not None or fkey != "cpu_us_per_io" else "target_cpu_s_per_m_io"
            xs = [r[side][key][k(r[side][key])] for r in results
                  if (r.get(side) or {}).get(key) and r[side][key].get(k(r[side][key])) is not None]
            row[side] = statistics.median(xs) if xs else None
            row[side + "_rounds"] = xs
        n = row["nvmf4j"]
        row["nvmf4j/fio"] = n / row["fio"] if row["fio"] and n is not None else None
        row["nvmf4j/fio-busy"] = n / row["fio-busy"] if row["fio-busy"] and n is not None else None
        row["nvmf4j/floor"] = n / row["floor"] if row["floor"] and n is not None else None
        row["nvmf4j/spdk"] = n / row["spdk"] if row["spdk"] and n is not None else None
        if any(row[s] is not None for s in SIDES):
            rows.append(row)
    return rows


def table_lines(rows):
    head = ["figure", "unit", "fio", "fio busy", "TCP floor", "SPDK aio", "nvmf4j", "nvmf4j/fio", "nvmf4j/fio busy",
            "nvmf4j/floor", "nvmf4j/SPDK"]
    ratio = lambda v: "-" if v is None else "%.2fx" % v
    lines = [[r["figure"], r["unit"], sp.fmt(r["fio"], r["unit"]), sp.fmt(r["fio-busy"], r["unit"]),
              sp.fmt(r["floor"], r["unit"]), sp.fmt(r["spdk"], r["unit"]), sp.fmt(r["nvmf4j"], r["unit"]),
              ratio(r["nvmf4j/fio"]), ratio(r["nvmf4j/fio-busy"]), ratio(r["nvmf4j/floor"]),
              ratio(r["nvmf4j/spdk"])] for r in rows]
    w = [max(len(str(x)) for x in col) for col in zip(head, *lines)]
    f = lambda cols: "  ".join((c.ljust(w[i]) if i == 0 else c.rjust(w[i])) for i, c in enumerate(cols))
    return [f(head), "  ".join("-" * x for x in w)] + [f(l) for l in lines]


# ---------------------------------------------------------------------------------------------- the run

def main():
    p = argparse.ArgumentParser(prog="bench/disk.sh", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    g = p.add_mutually_exclusive_group()
    g.add_argument("--dir", default=DEFAULT_DIR,
                   help="where the 2 GiB file of random data is created (default %s)" % DEFAULT_DIR)
    g.add_argument("--file", metavar="PATH", help="an existing file or block device instead (it gets overwritten)")
    p.add_argument("--spdk", metavar="DIR", help="SPDK build directory (bench/spdk-build.sh OUT_DIR): adds its side")
    p.add_argument("--rounds", type=int, default=3, help="rounds; the table gives each figure's median (default 3)")
    p.add_argument("--seconds", type=int, default=8, help="measured seconds per run (default 8)")
    p.add_argument("--ramp", type=int, default=2, help="warm-up seconds before each window (default 2)")
    p.add_argument("--nvmf4j-arg", action="append", default=[], metavar="ARG",
                   help="one more argument for nvmf4j serve (repeatable), e.g. --nvmf4j-arg=--backend-io "
                        "--nvmf4j-arg=uring")
    p.add_argument("--reader-arg", action="append", default=[], metavar="ARG",
                   help="one more argument for the measured nvmf4j perf of the latency pair (repeatable), e.g. "
                        "--reader-arg=--spin-us --reader-arg=1000000")
    p.add_argument("--load-arg", action="append", default=[], metavar="ARG",
                   help="one more argument for the second nvmf4j perf of that pair (repeatable)")
    p.add_argument("--target-cpu", type=int, metavar="N",
                   help="core of the targets and of fio (default: the core that took most of the disk's "
                        "interrupts, else the first this process may use); the hosts run on the first other one")
    p.add_argument("--load-cpu", metavar="N", help="core of the second host in the latency-under-load pair "
                   "(default: the measured host's)")
    p.add_argument("--load-nice", type=int, default=0, choices=range(0, 20), metavar="N",
                   help="nice level of the second host in that pair (default 0; 19: it runs only on what the "
                        "measured host leaves of the core)")
    p.add_argument("--only", metavar="REGEX", help="only the workloads whose label matches (%s, %s)"
                   % (", ".join(w[0] for w in WORKLOADS), LAT[0]))
    p.add_argument("--floor-mode", choices=["poll", "wait"], default="poll",
                   help="the TCP floor's two sides busy-poll (default, as nvmf4j's poll threads do) or sleep in "
                        "poll(2) when they have nothing to do (on a virtual machine a spinning core can slow the "
                        "virtual disk)")
    p.add_argument("--keep-file", action="store_true", help="keep the created file (reused by the next run)")
    p.add_argument("--json", help="JSON output (default bench/out/disk-<date>.json)")
    a = p.parse_args()
    if a.rounds < 1:
        die("--rounds must be >= 1")
    if shutil.which("fio") is None:
        die("fio is not installed (Debian: apt-get install fio)")
    d = None
    if a.spdk:
        d = os.path.realpath(a.spdk)
        for b in ("build/bin/nvmf_tgt", "build/bin/spdk_nvme_perf", "scripts/rpc.py"):
            if not os.path.exists(os.path.join(d, b)):
                die("%s/%s is missing: build SPDK with bench/spdk-build.sh SRC %s" % (d, b, d))
    os.makedirs(OUT, exist_ok=True)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    json_path = a.json or os.path.join(OUT, "disk-%s.json" % stamp)

    created = None
    if a.file:
        path = os.path.realpath(a.file)
        if not os.path.exists(path):
            die("%s does not exist" % path)
    else:
        os.makedirs(a.dir, exist_ok=True)
        path = os.path.join(os.path.realpath(a.dir), "disk-bench.img")
        if path.startswith(sp.ROOT + os.sep):
            die("--dir %s is inside the repository: put the 2 GiB file elsewhere" % a.dir)
        if not (os.path.isfile(path) and os.path.getsize(path) == FILE_BYTES):
            make_file(path)
        created = path
    disk = describe_disk(path)
    log(disk_line(disk))
    placement = place_cores(a, disk.get("device"))
    log("targets and fio on core %s, hosts on core %s (%s)" % (TARGET_CPU, HOST_CPU, placement))

    t0 = time.time()
    up_before, load_before = sp.uptime_line(), sp.loadavg()
    log("uptime before: " + up_before)
    r = subprocess.run([sp.NVMF4J, "modules"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        die("bin/nvmf4j modules failed (the CLI does not build):\n" + r.stderr[-2000:])

    floor = build_floor()
    sides = [s for s in SIDES if (s != "spdk" or d) and (s != "floor" or floor)]
    spdk = serve = None
    sport = None
    results = []
    try:
        if os.path.isfile(path) and os.path.getsize(path) <= WARM_READ_MAX:
            log("reading the whole file once (fio, 1 MiB QD8, direct)")
            if fio_run(path, [fio_job("warm-read", 8, 1 << 20, "read")], None, 0, "warm-read") is None:
                die("fio could not read %s" % path)
        else:
            log("no warm-up read: %s is a block device or larger than %d GiB" % (path, WARM_READ_MAX >> 30))
        if d:
            sport = sp.free_port()
            log("SPDK nvmf_tgt (core %s, --no-huge) on 127.0.0.1:%d, AIO bdev on %s" % (TARGET_CPU, sport, path))
            spdk = sp.Spdk(d, sport, bdev=(["bdev_aio_create", path, "Aio0", "512"], "Aio0"),
                           logname="disk-bench-nvmf_tgt.log", core_mask=core_mask(TARGET_CPU))
            sp.stop(spdk.p)
        log("nvmf4j serve --file %s %s(core %s)" % (path, " ".join(a.nvmf4j_arg) + " " if a.nvmf4j_arg else "",
                                                     TARGET_CPU))
        serve = sp.Serve(sp.free_port(), "nvmf4j", TARGET_CPU, namespace=("--file", path),
                         extra=["--no-rpc"] + a.nvmf4j_arg, log_prefix="disk-bench-serve-")
        sp.stop(serve.p)
        for rnd in range(1, a.rounds + 1):
            order = sides if rnd % 2 == 1 else list(reversed(sides))
            res = {"round": rnd, "order": order, "loadavg_start": sp.loadavg()}
            for side in order:
                if side in ("fio", "fio-busy"):
                    res[side] = measure_fio(path, a, rnd, busy=side == "fio-busy")
                elif side == "floor":
                    res[side] = measure_floor(floor, path, a, rnd)
                elif side == "spdk":
                    sp.cont(spdk.p)
                    res[side] = measure_spdk(spdk, d, sport, a, rnd)
                    sp.stop(spdk.p)
                else:
                    sp.cont(serve.p)
                    res[side] = measure_nvmf4j(serve, a, rnd)
                    sp.stop(serve.p)
            res["loadavg_end"] = sp.loadavg()
            results.append(res)
    finally:
        for x in (spdk, serve):
            if x is not None:
                x.close()
        if created and not a.keep_file:
            os.unlink(created)
            log("removed %s (--keep-file keeps it)" % created)

    serve_mode = ""
    try:
        m = re.search(r"file \S+ \((O_DIRECT|buffered)\)", open(serve.logfile).read())
        serve_mode = m.group(1) if m else ""
    except (OSError, AttributeError):
        pass
    up_after, load_after = sp.uptime_line(), sp.loadavg()
    for r in results:   # the figures stay, the nvmf4j perf JSON goes
        for v in (r.get("nvmf4j") or {}).values():
            if v:
                v.pop("perf_json", None)
    rows = table(results)
    heading = ("bench/disk.sh, %s, %d CPUs, %d rounds (medians), %d s per run (+%d s warm-up), load %.2f before / "
               "%.2f after" % (stamp, os.cpu_count(), a.rounds, a.seconds, a.ramp, load_before[0], load_after[0]))
    notes = [disk_line(disk),
             "cores: targets and fio on %s, hosts on %s (%s)" % (TARGET_CPU, HOST_CPU, placement),
             "fio %s: ioengine=io_uring direct=1 on the file, taskset -c %s" % (sh("fio", "--version"),
                                                                              TARGET_CPU),
             "fio busy: the same beside a busy loop on core %s, and the QD1 jobs polled "
             "(--iodepth_batch_complete_min=0)" % HOST_CPU,
             ("TCP floor: bench/tcpdisk.c, server on core %s (non-blocking socket, io_uring O_DIRECT, fixed buffers "
              "and file), client on core %s, loopback, both sides %s" % (
                  TARGET_CPU, HOST_CPU,
                  "busy-polling" if a.floor_mode == "poll" else "sleeping in poll(2) when idle") if floor else "TCP floor: not measured (tcpdisk.c did not build)"),
             ("SPDK v%s: nvmf_tgt -m %s --no-huge, NVMe/TCP, bdev_aio_create FILE Aio0 512; spdk_nvme_perf -c %s "
              "--no-huge" % (sp.spdk_version(d), core_mask(TARGET_CPU), core_mask(HOST_CPU)))
             if d else "SPDK: not measured (no --spdk DIR)",
             "nvmf4j: serve --file FILE%s%s (softiwarp) under taskset -c %s, perf under taskset -c %s" % (
                 " " + " ".join(a.nvmf4j_arg) if a.nvmf4j_arg else "",
                 ", %s" % serve_mode if serve_mode else "", TARGET_CPU, HOST_CPU),
             "latency under load: a second host (same stack, core %s) writes 1 MiB sequentially at QD4 into the "
             "same namespace while the QD1 host runs%s%s%s" % (
                 a.load_cpu, ", at nice %d" % a.load_nice if a.load_nice else "",
                 "; nvmf4j's measured host: perf " + " ".join(a.reader_arg) if a.reader_arg else "",
                 "; nvmf4j's second host: perf " + " ".join(a.load_arg) if a.load_arg else ""),
             "uptime before: " + up_before, "uptime after:  " + up_after]
    print()
    print(heading)
    for n in notes:
        print(n)
    for line in table_lines(rows):
        print(line)
    with open(json_path, "w") as f:
        json.dump({"date": stamp, "heading": heading, "notes": notes, "disk": disk,
                   "cores": {"target": TARGET_CPU, "host": HOST_CPU, "why": placement}, "spdk_dir": d,
                   "nvmf4j_args": a.nvmf4j_arg, "reader_args": a.reader_arg, "load_args": a.load_arg,
                   "rounds": a.rounds, "seconds": a.seconds, "ramp": a.ramp,
                   "uptime_before": up_before, "uptime_after": up_after, "loadavg_before": load_before,
                   "loadavg_after": load_after, "table": rows, "results": results,
                   "wall_seconds": time.time() - t0}, f, indent=2)
    log("wrote %s (%.0f s)" % (json_path, time.time() - t0))
    missing = [r["figure"] + " " + r["unit"] for r in rows
               if any(r[s] is None for s in sides if not absent_by_design(s, r))]
    if missing:
        log("no figure (a run failed) for: " + ", ".join(missing))
    return 1 if missing else 0


def core_mask(cpu):
    return hex(1 << int(cpu))


def disk_irq_cpus(device):
    """Interrupts per CPU of the device holding the file (its PCI function's MSI vectors, counted in
    /proc/interrupts), or {} when that cannot be told (no such device, no MSI, a device-mapper or loop device)."""
    name = os.path.basename(device or "")   # a whole disk: describe_disk resolved a partition to it
    if not name:
        return {}
    d = os.path.realpath("/sys/class/block/%s/device" % name)
    irqs = set()
    for _ in range(4):   # virtio: the PCI function is the virtio device's parent; NVMe: the controller's
        if os.path.isdir(d + "/msi_irqs"):
            irqs = set(os.listdir(d + "/msi_irqs"))
            break
        d = os.path.dirname(d)
    counts = {}
    try:
        with open("/proc/interrupts") as f:
            cpus = [int(c[3:]) for c in f.readline().split()]   # "CPU0 CPU1 ...": offline CPUs have no column
            for line in f:
                fields = line.split()
                if fields and fields[0].rstrip(":") in irqs:
                    for cpu, c in zip(cpus, fields[1:1 + len(cpus)]):
                        if c.isdigit():
                            counts[cpu] = counts.get(cpu, 0) + int(c)
    except OSError:
        return {}
    return {c: n for c, n in counts.items() if n > 0}


def place_cores(a, device):
    """Sets TARGET_CPU and HOST_CPU; returns why. A virtual disk here completes every request on one core, and its
    QD1 latency depends on where the request was submitted: fio 4K randread QD1 on this kind of VM gave p50 41 us
    on the interrupts' core and 50-66 us on the other one (66 with that core busy, as a spinning host keeps it)."""
    global TARGET_CPU, HOST_CPU
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2:
        die("needs two cores to run on, has %s" % allowed)
    if a.target_cpu is not None:
        if a.target_cpu not in allowed:
            die("--target-cpu %d: not among the cores this process may use, %s" % (a.target_cpu, allowed))
        target, why = a.target_cpu, "--target-cpu"
    else:
        irq = disk_irq_cpus(device)
        if irq and max(irq, key=irq.get) in allowed:
            target = max(irq, key=irq.get)
            why = "core %d took %d of the disk's %d interrupts" % (target, irq[target], sum(irq.values()))
        elif irq:
            target, why = allowed[0], "the disk's interrupt core %d is not among %s" % (max(irq, key=irq.get), allowed)
        else:
            target, why = allowed[0], "the disk's interrupts could not be told"
    TARGET_CPU, HOST_CPU = str(target), str(next(c for c in allowed if c != target))
    if a.load_cpu is None:
        a.load_cpu = HOST_CPU
    return why


def absent_by_design(side, row):
    """Figures a side never has, so their absence is no failed run: the floor has no second host (no latency-under-
    load rows), and spdk_nvme_perf prints no per-second progress to cut the second host's window from."""
    return ((side == "floor" and row["result"].startswith(("lat-", "load")))
            or (side == "spdk" and row["key"] == "mb_per_s_window"))


if __name__ == "__main__":
    sys.exit(main())
