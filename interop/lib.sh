# Helpers shared by the host driver (interop/run) and the guest runner (guest/main.sh), and by
# every check in checks/. Sourced, not executed.
#
# Host and guest meet through files in one directory both can see: $WORK/share/sync/<check> on
# the host is /lab/sync/<check> in the guest (9p, no caching, so a file written on one side is
# seen by the other on the next stat). $SYNC names that directory for the running check.

# Addresses as QEMU user networking gives them (interop/lab.sh): the guest's eth0 (siw0), and the
# host's 127.0.0.1 as the guest sees it (RESTRICT=off).
GUEST_IP=${GUEST_IP:-10.0.2.15}
HOST_FROM_GUEST=${HOST_FROM_GUEST:-10.0.2.2}

# reverse STRING: STRING backwards (the TCP probes answer with the token reversed).
reverse() { python3 -c 'import sys; print(sys.argv[1][::-1])' "$1"; }

# signal NAME [VALUE]: publish NAME (atomically: write aside, then rename) with an optional value.
signal() {
  printf '%s\n' "${2:-}" > "$SYNC/.$1.tmp" && mv -f "$SYNC/.$1.tmp" "$SYNC/$1"
}

# await NAME SECONDS: wait until the other side signals NAME; prints its value; 1 on timeout.
await() {
  local name=$1 deadline=$((SECONDS + $2))
  while [ ! -e "$SYNC/$name" ]; do
    if [ $SECONDS -ge $deadline ]; then
      echo "timed out after $2 s waiting for '$name' from the other side" >&2
      return 1
    fi
    sleep 0.2
  done
  cat "$SYNC/$name"
}

# kt_host_part STEPS: the host part of a check against the guest's kernel target (interop/guest/kernel-target.sh
# kt_serve_host): waits for "kernel-target-ready" (its value: the subsystem NQN), runs STEPS NQN, then signals
# "host-done" whatever STEPS returned; STEPS' status.
kt_host_part() {
  local nqn rc
  nqn=$(await kernel-target-ready 90) || return 1
  "$1" "$nqn"; rc=$?
  signal host-done
  return $rc
}

# wait_for_line FILE REGEX PID TRIES: waits, TRIES times 0.2 s at most, for a line matching REGEX in FILE (a daemon's
# log announcing it is up); 1 when PID ends first or the time runs out.
wait_for_line() {
  local i
  for i in $(seq "$4"); do
    grep -q "$2" "$1" 2>/dev/null && return 0
    kill -0 "$3" 2>/dev/null || break
    sleep 0.2
  done
  grep -q "$2" "$1" 2>/dev/null
}

# note MSG: a line in the check's log, timestamped (seconds since the check began).
note() { printf '[%4ds] %s\n' "$SECONDS" "$*"; }

# perf_verify LABEL COMMAND...: runs COMMAND, an `nvmf4j perf --verify` (on the host or, through gj_nvmf4j, in the
# guest), with --label LABEL --json added, into $SYNC/LABEL.json; prints one line of figures; 1 when perf failed
# (its last messages printed) or its JSON shows no read, no write or no verified block.
perf_verify() {
  local label=$1; shift
  "$@" --label "$label" --json > "$SYNC/$label.json" 2> "$SYNC/$label.err" || {
    note "FAIL: perf $label"; tr '\r' '\n' < "$SYNC/$label.err" | grep -v '^$' | tail -15; return 1; }
  python3 - "$SYNC/$label.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
rd, wr, tot = r["read"], r["write"], r["total"]
print("%-12s %6d B qd%-3d %8.0f IOPS  read %d ios, write %d ios, verified %d blocks"
      % (r["label"], r["io_size"], r["queue_depth"], tot["iops"], rd["ios"], wr["ios"], r.get("verified_blocks", 0)))
bad = [p for p, c in (("no read", rd["ios"] == 0), ("no write", wr["ios"] == 0),
                      ("no block verified", r.get("verified_blocks", 0) <= 0)) if c]
for p in bad: print("perf check:", p)
sys.exit(1 if bad else 0)
PY
}

# rping_expected_line I SIZE: the string rping's client puts in its buffer for ping I with -S SIZE
# (librdmacm/examples/rping.c, rping_test_client(): "rdma-ping-%d: " then ascending characters
# from 'A'+(I mod 58), wrapping after 'z' to 'A'; the last byte is NUL, so SIZE-1 characters).
rping_expected_line() {
  python3 - "$1" "$2" <<'PY'
import sys
i, size = int(sys.argv[1]), int(sys.argv[2])
s = "rdma-ping-%d: " % i
c = 65 + i % 58
out = list(s[:size - 1])
while len(out) < size - 1:
    out.append(chr(c)); c = 65 if c >= 122 else c + 1
print("".join(out))
PY
}

# rping_verify_log FILE PREFIX COUNT SIZE: FILE holds COUNT lines "PREFIX<data>" (rping -v output),
# ping I's data equal to rping_expected_line I SIZE. Prints what is wrong; 1 on any mismatch.
rping_verify_log() {
  python3 - "$@" <<'PY'
import sys
path, prefix, count, size = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
def expected(i):
    s = list(("rdma-ping-%d: " % i)[:size - 1]); c = 65 + i % 58
    while len(s) < size - 1:
        s.append(chr(c)); c = 65 if c >= 122 else c + 1
    return "".join(s)
lines = [l.rstrip("\n")[len(prefix):] for l in open(path, errors="replace") if l.startswith(prefix)]
bad = [i for i in range(min(count, len(lines))) if lines[i] != expected(i)]
if len(lines) != count or bad:
    print("rping data check: %d of %d pings seen, mismatching pings: %s" % (len(lines), count, bad[:10]))
    for i in bad[:2]:
        got, exp = lines[i], expected(i)
        at = next((k for k in range(min(len(got), len(exp))) if got[k] != exp[k]), min(len(got), len(exp)))
        print("  ping %d: first difference at byte %d: got %r, expected %r (lengths %d/%d)"
              % (i, at, got[at:at + 16], exp[at:at + 16], len(got), len(exp)))
    sys.exit(1)
print("rping data check: %d pings of %d bytes, every byte as rping's pattern" % (count, size))
PY
}
