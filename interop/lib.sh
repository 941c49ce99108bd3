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

# note MSG: a line in the check's log, timestamped (seconds since the check began).
note() { printf '[%4ds] %s\n' "$SECONDS" "$*"; }

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
