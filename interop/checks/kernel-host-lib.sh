# Host-side helpers of the kernel-host checks (NN-kernel-host-*.sh): the Linux kernel's NVMe-oF RDMA host
# (nvme-rdma over siw0 in the guest) against `nvmf4j serve` (softiwarp) on the host's 127.0.0.1, reached from
# the guest as 10.0.2.2; with KH_TRANSPORT=tcp on the host and the *_tcp helpers in the guest, its NVMe/TCP host
# (nvme-tcp over eth0) against `nvmf4j serve --transport tcp`. Sourced by a check's host_part from $ROOT/interop/checks, and by its guest_part from
# /lab/checks (interop/run stages it there; older checks still source the copy kh_serve_image leaves in $SYNC).

KH_SUBNQN=nqn.2026-12.io.nvmf4j:lab-disk
KH_HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:6c1e0f2a-0b7d-4e8a-9a55-3a1c2b4d5e6f

# kh_start_serve PORT ARGS...: starts nvmf4j serve in the background (pid in $KH_PID, log $SYNC/serve.log), waits
# for its "listening" line; 1 if it dies or does not come up. Over RDMA with the softiwarp provider, or over
# NVMe/TCP when KH_TRANSPORT=tcp (no provider then: plain sockets).
kh_start_serve() {
  local port=$1 transport=(--provider softiwarp); shift
  [ "${KH_TRANSPORT:-rdma}" = tcp ] && transport=(--transport tcp)
  "$NVMF4J" serve --listen "127.0.0.1:$port" "${transport[@]}" "$@" >> "$SYNC/serve.log" 2>&1 &
  KH_PID=$!
  # the JVM may take a while to start on a loaded machine
  wait_for_line "$SYNC/serve.log" 'listening on' $KH_PID 600 && return 0
  note "nvmf4j serve did not come up"; cat "$SYNC/serve.log"; kill $KH_PID 2>/dev/null
  return 1
}

# kh_await NAME SECONDS: like await, but gives up as soon as the guest part has ended without signalling NAME.
kh_await() {
  local name=$1 deadline=$((SECONDS + $2))
  while [ ! -e "$SYNC/$name" ]; do
    if [ -e "$SYNC/guest.rc" ] && [ ! -e "$SYNC/$name" ]; then
      echo "the guest part ended (rc=$(cat "$SYNC/guest.rc")) without signalling '$name'" >&2
      return 1
    fi
    if [ $SECONDS -ge $deadline ]; then
      echo "timed out after $2 s waiting for '$name' from the guest" >&2
      return 1
    fi
    sleep 0.2
  done
  cat "$SYNC/$name"
}

# kh_stop_serve: SIGTERM, then the daemon must exit 0 within 60 s.
kh_stop_serve() {
  local rc
  [ -n "${KH_PID:-}" ] || return 0
  kill -TERM $KH_PID 2>/dev/null
  for i in $(seq 300); do kill -0 $KH_PID 2>/dev/null || break; sleep 0.2; done
  if kill -0 $KH_PID 2>/dev/null; then
    note "nvmf4j serve still running 60 s after SIGTERM"; kill -KILL $KH_PID; wait $KH_PID; KH_PID=; return 1
  fi
  wait $KH_PID; rc=$?
  KH_PID=
  note "nvmf4j serve exited rc=$rc"
  return $rc
}

# kh_image SIZE_MIB: a zero-filled image file for a file namespace; prints its path.
kh_image() {
  local img=$SYNC/disk.img
  rm -f "$img"
  truncate -s "${1}M" "$img"
  echo "$img"
}

# kh_serve_image SIZE_MIB [serve options...]: what the kernel-host checks' host parts begin with: a SIZE_MIB image
# ($KH_IMG) as the file namespace of $KH_SUBNQN for $KH_HOSTNQN, nvmf4j serve on a free port ($KH_PORT) with the
# options given, this file handed to the guest, and "PORT SUBNQN HOSTNQN" signalled as "target". 1 if serve fails.
kh_serve_image() {
  local size=$1; shift
  KH_PORT=$(free_port)
  KH_IMG=$(kh_image "$size")
  cp "$ROOT/interop/checks/kernel-host-lib.sh" "$SYNC/"
  kh_start_serve "$KH_PORT" --file "$KH_IMG" --nqn "$KH_SUBNQN" --allow-host "$KH_HOSTNQN" "$@" || return 1
  signal target "$KH_PORT $KH_SUBNQN $KH_HOSTNQN"
}

# kh_image_has_ext4 (host): whether $KH_IMG begins with an ext4 file system (its superblock starts 1024 bytes in,
# the magic 0xEF53 at byte 56 of it), said in the log; 1 when it does not.
kh_image_has_ext4() {
  local magic
  magic=$(od -An -tx1 -j 1080 -N 2 "$KH_IMG" | tr -d ' ')
  if [ "$magic" = 53ef ]; then note "the image holds the guest's ext4 (magic 0xEF53)"; return 0; fi
  note "FAIL: no ext4 superblock in the image (bytes 1080-1081: $magic)"
  return 1
}

# kh_serve_until_done SIZE_MIB SECONDS [serve options...]: kh_serve_image, then wait up to SECONDS for the guest's
# "done" and stop the daemon (which must exit 0). 1 if any step fails.
kh_serve_until_done() {
  local size=$1 seconds=$2 rc=0; shift 2
  kh_serve_image "$size" "$@" || return 1
  kh_await done "$seconds" > /dev/null || rc=1
  kh_stop_serve || rc=1
  return $rc
}

# kh_icreq_relay PORT TARGET_PORT LOG (host): a TCP relay from 127.0.0.1:PORT to nvmf4j serve on 127.0.0.1:TARGET_PORT,
# in the background (pid in $KH_RELAY_PID), that passes every byte on unchanged and writes to LOG, per connection,
# the PDU type and DGST byte of the first PDU each way: the host's ICReq and the controller's ICResp (Linux
# include/linux/nvme-tcp.h, struct nvme_tcp_icreq_pdu / nvme_tcp_icresp_pdu: byte 11, bit 0 header digest, bit 1
# data digest). The kernel shows no digest setting in sysfs; what the two sides agreed on the wire does.
kh_icreq_relay() {
  : > "$3"
  python3 - "$@" <<'PY' &
import socket, sys, threading
port, target, log = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
lock = threading.Lock()
def record(line):
    with lock, open(log, "a") as f:
        f.write(line + "\n")
def shut(s, how):
    try:
        s.shutdown(how)
    except OSError:
        pass
def pump(src, dst, conn, side):
    head = b""
    walk = {"buf": b"", "skip": 0, "seen": False}
    while True:
        try:
            data = src.recv(65536)
        except OSError:
            data = b""
        if not data:
            shut(dst, socket.SHUT_WR)    # pass the end of this direction on; the other goes on
            return
        if len(head) < 12:
            head += data
            if len(head) >= 12:
                record("conn %d %s type 0x%02x dgst %d" % (conn, side, head[0], head[11] & 3))
        if side == "icresp" and not walk["seen"] and c2h_success(walk, data):
            walk["seen"] = True
            record("c2hdata-success on connection %d" % conn)   # before the bytes go on: the log has it once they arrive
        try:
            dst.sendall(data)
        except OSError:
            shut(src, socket.SHUT_RDWR)  # the other side is gone: end both directions
            shut(dst, socket.SHUT_RDWR)
            return
def c2h_success(walk, data):
    """Walks the controller's PDUs by PLEN: true at the first C2HData (type 0x07) with the SUCCESS flag (0x08)."""
    while data:
        if walk["skip"]:
            n = min(walk["skip"], len(data))
            walk["skip"] -= n
            data = data[n:]
            continue
        buf = walk["buf"] + data
        data = b""
        while len(buf) >= 8:
            if buf[0] == 0x07 and buf[1] & 0x08:
                return True
            plen = max(8, int.from_bytes(buf[4:8], "little"))  # a bad PLEN must not stop the walk
            if len(buf) >= plen:
                buf = buf[plen:]
            else:
                walk["skip"] = plen - len(buf)
                buf = b""
        walk["buf"] = buf
    return False
srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", port))
srv.listen(64)
record("listening")
n = 0
while True:
    host, _ = srv.accept()
    try:
        ctrl = socket.create_connection(("127.0.0.1", target))
    except OSError as e:
        record("connection to port %d failed: %s" % (target, e))
        host.close()
        continue
    for s in (host, ctrl):
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    n += 1
    threading.Thread(target=pump, args=(host, ctrl, n, "icreq"), daemon=True).start()
    threading.Thread(target=pump, args=(ctrl, host, n, "icresp"), daemon=True).start()
PY
  KH_RELAY_PID=$!
  wait_for_line "$3" '^listening' $KH_RELAY_PID 50 && return 0
  note "the ICReq relay on port $1 did not come up"; kill $KH_RELAY_PID 2>/dev/null
  return 1
}

# kh_relay_digests LOG DGST (host): every connection in LOG (kh_icreq_relay) sent an ICReq (type 0x00) and got an
# ICResp (type 0x01), at least two of them (the admin queue and an I/O queue), each with DGST (0: no digest, 3:
# header and data digest); prints LOG and what is wrong; 1 when anything is.
kh_relay_digests() {
  cat "$1"
  python3 - "$1" "$2" <<'PY'
import sys
want, conns = int(sys.argv[2]), {}
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] == "conn":
        conns.setdefault(int(f[1]), {})[f[2]] = (int(f[4], 16), int(f[6]))
bad = []
for n, c in sorted(conns.items()):
    for side, pdu in (("icreq", 0), ("icresp", 1)):
        if side not in c:
            bad.append("connection %d: no %s seen" % (n, side))
        elif c[side] != (pdu, want):
            bad.append("connection %d: %s is PDU type 0x%02x with digest bits %d, expected 0x%02x with %d"
                       % (n, side, c[side][0], c[side][1], pdu, want))
if len(conns) < 2:
    bad.append("%d connection(s) through the relay, expected the admin queue and at least one I/O queue" % len(conns))
for b in bad:
    print("FAIL:", b)
print("%d connection(s), ICReq/ICResp digest bits %s" % (len(conns), "as expected" if not bad else "wrong"))
sys.exit(1 if bad else 0)
PY
}

# ---- guest side (the host part copies this file into $SYNC, which the guest sees as /lab/sync/<check>) ----

# kh_connect PORT SUBNQN HOSTNQN [nvme connect options...]: connects; sets KH_CTRL (/dev/nvmeN) and KH_DEV (the
# namespace's block device, /dev/nvmeXn1). 1 on failure, with the kernel's last messages.
kh_connect() {
  kh_connect_over rdma "$@"
}

# kh_connect_tcp PORT SUBNQN HOSTNQN [nvme connect options...]: kh_connect over NVMe/TCP (nvme-tcp); the options may
# ask for digests (--hdr-digest, --data-digest).
kh_connect_tcp() {
  kh_connect_over tcp "$@"
}

# kh_connect_over TRTYPE PORT SUBNQN HOSTNQN [nvme connect options...]: what kh_connect and kh_connect_tcp do, with
# nvme-TRTYPE.
kh_connect_over() {
  local trtype=$1 port=$2 subnqn=$3 hostnqn=$4; shift 4
  local before c
  before=$(ls /dev/nvme*n* 2>/dev/null | tr '\n' ' ')
  modprobe "nvme-$trtype"
  local addr=${KH_ADDR:-$HOST_FROM_GUEST}   # KH_ADDR: another target address (default the host, 10.0.2.2)
  note "nvme connect -t $trtype -a $addr -s $port -n $subnqn $*"
  timeout 90 nvme connect -t "$trtype" -a "$addr" -s "$port" -n "$subnqn" --hostnqn="$hostnqn" "$@" \
      || { note "nvme connect failed"; dmesg | tail -30; return 1; }
  KH_CTRL= KH_DEV=
  for i in $(seq 150); do
    for c in /sys/class/nvme/nvme*; do
      [ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$subnqn" ] && KH_CTRL=/dev/${c##*/}
    done
    for c in /dev/nvme*n*; do
      [[ $c =~ ^/dev/nvme[0-9]+n[0-9]+$ ]] || continue
      case " $before " in *" $c "*) ;; *) KH_DEV=$c ;; esac
    done
    [ -n "$KH_CTRL" ] && [ -b "$KH_DEV" ] && break
    sleep 0.2
  done
  [ -n "$KH_CTRL" ] && [ -b "$KH_DEV" ] || { note "no controller/namespace appeared"; nvme list; dmesg | tail -20; return 1; }
  note "connected: controller $KH_CTRL, namespace $KH_DEV"
}

# kh_guest_connect [nvme connect options...] (guest; the caller declares `local port subnqn hostnqn`): waits up to
# 200 s for the host part's "target" (kh_serve_image), sets the caller's port, subnqn and hostnqn from it, and
# connects with kh_connect.
kh_guest_connect() {
  local t
  t=$(await target 200) || return 1
  read -r port subnqn hostnqn <<< "$t"
  kh_connect "$port" "$subnqn" "$hostnqn" "$@"
}

# kh_guest_connect_tcp [nvme connect options...] (guest; the caller declares `local port subnqn hostnqn`):
# kh_guest_connect over NVMe/TCP (kh_connect_tcp), for a host part that served with KH_TRANSPORT=tcp.
kh_guest_connect_tcp() {
  local t
  t=$(await target 200) || return 1
  read -r port subnqn hostnqn <<< "$t"
  kh_connect_tcp "$port" "$subnqn" "$hostnqn" "$@"
}

# ---- side by side with the kernel (checks 26 and 33, bench/kernel-lab.sh): the same fio jobs everywhere ----
# Emulated machine (QEMU TCG): the figures are for ratios only, never absolute speeds.

# The jobs, in the order they run: NAME:RW:BS:DEPTH (fio's --rw/--bs/--iodepth; nvmf4j perf's -w/-o/-q).
# The sequential write first, so that the random reads after it read written blocks on both targets.
KH_LAB_JOBS="write-64k:write:64k:8 randread-4k:randread:4k:16"
KH_LAB_SECONDS=${KH_LAB_SECONDS:-8}    # measured seconds per job (after 1 s of ramp)
KH_LAB_REGION=64m                      # every job stays in the first 64 MiB (the RAM namespaces' size)

# kh_nvmet_ram_setup MB (guest; /lab/guest/kernel-target.sh sourced): the kernel target of kernel-target.sh
# (subsystem $KT_NQN, rdma $GUEST_IP:4420), its namespace moved from the loop device onto RAM: a brd disk
# (/dev/ram0), else a memory-backed null_blk, else the loop device on its tmpfs file stays. Sets KH_RAMDEV.
kh_nvmet_ram_setup() {
  local mb=$1 ns=$KT_CFG/subsystems/$KT_NQN/namespaces/1 loop
  kh_nvmet_ram_teardown
  kt_setup "$mb" || return 1
  KH_RAMDEV=
  if modprobe brd rd_nr=1 rd_size=$((mb * 1024)) max_part=0 2>/dev/null && [ -b /dev/ram0 ]; then
    KH_RAMDEV=/dev/ram0
  elif modprobe null_blk nr_devices=1 memory_backed=1 gb=1 bs=512 2>/dev/null && [ -b /dev/nullb0 ]; then
    KH_RAMDEV=/dev/nullb0
  fi
  if [ -n "$KH_RAMDEV" ]; then
    loop=$(cat "$ns/device_path")
    echo 0 > "$ns/enable" && echo -n "$KH_RAMDEV" > "$ns/device_path" && echo 1 > "$ns/enable" ||
      { note "kh_nvmet_ram_setup: cannot move the namespace to $KH_RAMDEV"; return 1; }
    losetup -d "$loop" 2>/dev/null; rm -f "$KT_IMG"
    note "kernel target namespace 1 is now $KH_RAMDEV ($(blockdev --getsize64 "$KH_RAMDEV") bytes, RAM)"
  else
    KH_RAMDEV=$(cat "$ns/device_path")
    note "no brd/null_blk module: namespace 1 stays on $KH_RAMDEV (a loop device on a tmpfs file, RAM too)"
  fi
}

# kh_nvmet_ram_teardown (guest): kt_teardown, then unload what kh_nvmet_ram_setup loaded.
kh_nvmet_ram_teardown() {
  kt_teardown 2>/dev/null
  rmmod brd 2>/dev/null; rmmod null_blk 2>/dev/null
  return 0
}

# kh_fio JOB SIDE DEV (guest): one job of $KH_LAB_JOBS against DEV, fio's JSON in $SYNC/fio-SIDE-JOB.json;
# 1 when fio failed or reported an error.
kh_fio() {
  local job=$1 side=$2 dev=$3 spec name rw bs qd out rc
  for spec in $KH_LAB_JOBS; do
    IFS=: read -r name rw bs qd <<< "$spec"
    [ "$name" = "$job" ] && break
  done
  [ "$name" = "$job" ] || { note "kh_fio: no job $job"; return 1; }
  out=$SYNC/fio-$side-$job.json
  note "fio $side $job: --rw=$rw --bs=$bs --iodepth=$qd --runtime=$KH_LAB_SECONDS on $dev"
  timeout $((KH_LAB_SECONDS + 60)) fio --name="$job" --filename="$dev" --ioengine=libaio --direct=1 \
      --rw="$rw" --bs="$bs" --iodepth="$qd" --size="$KH_LAB_REGION" --time_based --runtime="$KH_LAB_SECONDS" \
      --ramp_time=1 --norandommap --randrepeat=0 --lat_percentiles=1 --output-format=json \
      --output="$out" > /tmp/fio-$side-$job.err 2>&1
  rc=$?
  if [ $rc = 0 ] && grep -o '"error" : [0-9]*' "$out" | grep -qv ': 0$'; then rc=1; fi
  [ $rc = 0 ] || { note "FAIL: fio $side $job rc=$rc"; cat /tmp/fio-$side-$job.err; tail -20 "$out"; dmesg | tail -20; }
  return $rc
}

# kh_lab_report CHECK_NAME TITLE [--note TEXT]... --col KEY=HEADER... --ratio NUM/DEN... --m JOB:KEY:FILE...
# (host): the side-by-side table from fio JSON (fio-*.json) and nvmf4j perf --json files: one row per job,
# one column per KEY (IOPS for random reads, MiB/s for writes), the ratios NUM/DEN; printed and written to
# $SYNC/results.{txt,json} and $WORK/results/CHECK_NAME.{txt,json}. 1 when a measurement is missing, has no
# I/O or reports an error.
kh_lab_report() {
  local dir=${WORK:-$ROOT/interop/work}/results
  mkdir -p "$dir"
  python3 - "$SYNC" "$dir" "$@" <<'PY'
import json, sys, time, os
sync, outdir, check, title = sys.argv[1:5]
args = sys.argv[5:]
notes, cols, ratios, meas = [], [], [], []
i = 0
while i < len(args):
    k, v = args[i], args[i + 1]; i += 2
    if k == "--note": notes.append(v)
    elif k == "--col": cols.append(tuple(v.split("=", 1)))
    elif k == "--ratio": ratios.append(tuple(v.split("/", 1)))
    elif k == "--m": meas.append(tuple(v.split(":", 2)))
    else: sys.exit("kh_lab_report: unknown argument " + k)

def load(path):
    text = open(path, errors="replace").read()
    return json.loads(text[text.index("{"):])   # fio may print warnings before its JSON

def figures(path):
    d = load(path)
    if "jobs" in d:   # fio
        j = d["jobs"][0]
        op = "read" if j["read"]["io_bytes"] > 0 else "write"
        o = j[op]
        lat = o.get("lat_ns", {}); pct = lat.get("percentile", {})
        return {"tool": "fio " + d.get("fio version", ""), "op": op, "ios": o["total_ios"],
                "iops": o["iops"], "mib_per_s": o["bw"] / 1024.0, "lat_avg_us": lat.get("mean", 0) / 1000.0,
                "lat_p99_us": pct.get("99.000000", 0) / 1000.0, "seconds": j.get("job_runtime", 0) / 1000.0,
                "errors": j.get("error", 0)}
    op = "read" if d["read"]["ios"] > 0 else "write"   # nvmf4j perf --json
    o = d[op]
    return {"tool": "nvmf4j perf", "op": op, "ios": o["ios"], "iops": o["iops"], "mib_per_s": o["mib_per_s"],
            "lat_avg_us": o["latency_us"]["avg"], "lat_p99_us": o["latency_us"]["p99"],
            "seconds": d["seconds"], "errors": 0}

problems, rows = [], {}
for job, key, path in meas:
    try:
        f = figures(path)
    except Exception as e:
        problems.append("%s %s: no result (%s: %s)" % (job, key, os.path.basename(path), e)); continue
    if f["ios"] <= 0: problems.append("%s %s: no I/O completed" % (job, key))
    if f["errors"]: problems.append("%s %s: %s reported error %s" % (job, key, f["tool"], f["errors"]))
    rows.setdefault(job, {})[key] = f

def main(job, f):   # the figure a job is judged by
    return f["iops"] if job.startswith("rand") else f["mib_per_s"]
def us(x):
    return ("%.0f us" % x) if x < 10000 else ("%.0f ms" % (x / 1000.0))
def fmt(job, f):   # the main figure, then the latency (avg / p99)
    if f is None: return "-"
    m = ("%.0f IOPS" % f["iops"]) if job.startswith("rand") else ("%.1f MiB/s" % f["mib_per_s"])
    return "%s, lat %s / %s" % (m, us(f["lat_avg_us"]), us(f["lat_p99_us"]))
headers = ["job"] + [h for _, h in cols] + ["%s/%s" % r for r in ratios]
table = []
for job in dict.fromkeys(j for j, _, _ in meas):
    r = rows.get(job, {})
    line = [job] + [fmt(job, r.get(k)) for k, _ in cols]
    for num, den in ratios:
        a, b = r.get(num), r.get(den)
        line.append("%.2f" % (main(job, a) / main(job, b)) if a and b and main(job, b) > 0 else "-")
    table.append(line)
w = [max(len(str(x[c])) for x in [headers] + table) for c in range(len(headers))]
out = ["%s  (%s)" % (title, time.strftime("%Y-%m-%d %H:%M:%S %Z")),
       "QEMU TCG (emulated machine): ratios only, never absolute speeds"] + notes
out.append(" | ".join(h.ljust(w[c]) for c, h in enumerate(headers)))
out.append("-+-".join("-" * x for x in w))
for line in table: out.append(" | ".join(str(x).ljust(w[c]) for c, x in enumerate(line)))
out.append("figures: IOPS (random reads) or MiB/s (writes), then latency avg / p99 per I/O; ratios of the first figure")
out.append("keys: " + "; ".join("%s = %s" % (k, h) for k, h in cols))
for p in problems: out.append("PROBLEM: " + p)
text = "\n".join(out) + "\n"
report = {"check": check, "title": title, "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
          "emulated": "QEMU TCG: ratios only, never absolute speeds", "notes": notes,
          "columns": {k: h for k, h in cols}, "jobs": rows,
          "ratios": {"%s/%s" % (n, d): {job: (main(job, rows[job][n]) / main(job, rows[job][d]))
                                        for job in rows if n in rows[job] and d in rows[job] and main(job, rows[job][d]) > 0}
                     for n, d in ratios},
          "problems": problems}
for base in (os.path.join(sync, "results"), os.path.join(outdir, check)):
    open(base + ".txt", "w").write(text)
    json.dump(report, open(base + ".json", "w"), indent=2)
sys.stdout.write(text)
print("saved: %s.{txt,json}" % os.path.join(outdir, check))
sys.exit(1 if problems else 0)
PY
}

# kh_restart_host_part / kh_restart_guest_part: checks 25 (RDMA) and 67 (KH_TRANSPORT=tcp). The target is stopped
# with SIGTERM while the kernel host writes, then started again on the same port and image: the daemon exits 0,
# the kernel host reconnects (reconnect delay 1 s), fio finishes its random writes and its verify pass reads every
# block it wrote back with a correct crc32c: no write the target acknowledged is lost.
kh_restart_host_part() {
  local rc=0
  kh_serve_image 96 || return 1
  kh_await fio-running 300 > /dev/null || { kh_stop_serve; return 1; }
  sleep 3
  note "SIGTERM to nvmf4j serve (${KH_TRANSPORT:-rdma}) while fio writes"
  kh_stop_serve || { note "FAIL: the daemon did not exit 0 on SIGTERM"; rc=1; }
  sleep 2
  note "starting nvmf4j serve again on the same port and image"
  kh_start_serve "$KH_PORT" --file "$KH_IMG" --nqn "$KH_SUBNQN" --allow-host "$KH_HOSTNQN" || return 1
  signal restarted
  kh_await done 500 > /dev/null || rc=1
  kh_stop_serve || rc=1
  grep -cE 'connected to' "$SYNC/serve.log" | sed 's/^/connect lines: /'
  return $rc
}

kh_restart_guest_part() {
  local port subnqn hostnqn rc=0
  if [ "${KH_TRANSPORT:-rdma}" = tcp ]; then
    modprobe nvme-tcp || return 1
    kh_guest_connect_tcp --reconnect-delay=1 --ctrl-loss-tmo=120 || return 1
  else
    kh_guest_connect --reconnect-delay=1 --ctrl-loss-tmo=120 || return 1
  fi
  note "fio randwrite 48 MiB at 1500 IOPS, iodepth 32, crc32c headers, verify pass after"
  # SIGPIPE ignored: the kernel's nvme-tcp sends from the task that submits the I/O (nvme_tcp_queue_request(),
  # when the queue's CPU is the caller's), and such a send on the connection the stopping target just closed
  # raised SIGPIPE in fio: its job thread died (rc 141), or with a forked job (fio's default) the job process died
  # without freeing its engine options, which fio 3.33's parent then freed a second time at exit ("free(): double
  # free detected", rc 134). fio sets no SIGPIPE handler of its own, so the ignore holds across exec. --thread keeps
  # any signal that ends the job visible as fio's own exit status.
  ( trap '' PIPE
    exec timeout 420 fio --name=restart --thread --filename="$KH_DEV" --ioengine=libaio --direct=1 \
        --rw=randwrite --bs=4k --iodepth=32 --size=48M --rate_iops=1500 --verify=crc32c --do_verify=1 \
        --verify_fatal=1 --randrepeat=0 --output=/tmp/fio.log > /tmp/fio.err 2>&1 ) &
  local fpid=$!
  sleep 2
  signal fio-running
  await restarted 300 > /dev/null || rc=1
  wait $fpid; local frc=$?
  grep -E 'IOPS=|err=|verify|bad' /tmp/fio.log | head -8
  dmesg | grep -iE 'nvme.*(reconnect|Successfully|error|reset)' | tail -6
  if [ $frc != 0 ]; then
    note "FAIL: fio rc=$frc"; tail -30 /tmp/fio.log; sed 's/^/fio stderr: /' /tmp/fio.err | tail -20; rc=1
  fi
  [ $rc = 0 ] && note "fio verified every block after the target restart"
  nvme disconnect -n "$subnqn" || rc=1
  signal done
  return $rc
}
