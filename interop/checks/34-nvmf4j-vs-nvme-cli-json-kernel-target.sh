# nvmf4j's nvme-cli JSON beside nvme-cli's own, against the same target: the guest kernel's nvmet-rdma over
# siw0. In the guest, nvme-cli (Debian 12: 2.3) runs `nvme discover -o json`, then connects the guest kernel
# host and runs `nvme id-ctrl -o json` and `nvme id-ns -n 1 -o json`, and disconnects; then on the host
# `nvmf4j discover -o json`, `nvmf4j id-ctrl -o json` and `nvmf4j id-ns -n 1 -o json` ask the same target
# (127.0.0.1:$FWD_PORT, forwarded to 10.0.2.15:4420). The host diffs them: the same keys in the same order,
# the same JSON type for each, the same values, and the same text byte for byte (json-c's layout), except
# the intentional differences listed in INTENTIONAL below:
#   id-ctrl cntlid: nvmet gives every connection a controller of its own (dynamic controller model,
#                   NVMe-oF 1.1 4.2); the guest's and the host's are two connections.
# Anything else that differs fails the check, and the check prints it.
CHECK_TIMEOUT=300

guest_part() {
  . /lab/guest/kernel-target.sh
  local d0 rc=0 dev ctrl i
  d0=$(dmesg | wc -l)
  kt_setup 64 || { dmesg | tail -20; return 1; }
  modprobe -a nvme-fabrics nvme-rdma || { note "cannot load nvme-rdma"; return 1; }
  nvme version > "$SYNC/nvme-version.txt" 2>&1
  note "$(cat "$SYNC/nvme-version.txt")"
  nvme discover -t rdma -a "$GUEST_IP" -s 4420 -o json > "$SYNC/nvme-discover.json" 2> "$SYNC/nvme-discover.err" ||
    { cat "$SYNC/nvme-discover.err"; note "nvme discover -o json failed"; rc=1; }
  if kt_local_connect; then
    dev=$KT_HOST_DEV ctrl=$KT_HOST_CTRL
    nvme id-ctrl "$ctrl" -o json > "$SYNC/nvme-id-ctrl.json" 2> "$SYNC/nvme-id-ctrl.err" ||
      { cat "$SYNC/nvme-id-ctrl.err"; note "nvme id-ctrl -o json failed"; rc=1; }
    nvme id-ns "$dev" -n 1 -o json > "$SYNC/nvme-id-ns.json" 2> "$SYNC/nvme-id-ns.err" ||
      { cat "$SYNC/nvme-id-ns.err"; note "nvme id-ns -o json failed"; rc=1; }
  else
    rc=1
  fi
  kt_local_disconnect
  kt_serve_host 240 "$d0" || rc=1
  kt_teardown
  return $rc
}

host_part() {
  local nqn rc=0 name
  nqn=$(await kernel-target-ready 220) || return 1
  local C=(--traddr 127.0.0.1 --trsvcid "$FWD_PORT" --connect-timeout 20)
  note "nvmf4j discover ${C[*]} -o json"
  "$NVMF4J" discover "${C[@]}" -o json > "$SYNC/nvmf4j-discover.json" 2> "$SYNC/nvmf4j-discover.err" ||
    { cat "$SYNC/nvmf4j-discover.err"; note "nvmf4j discover -o json failed"; rc=1; }
  note "nvmf4j id-ctrl ${C[*]} --nqn $nqn -o json"
  "$NVMF4J" id-ctrl "${C[@]}" --nqn "$nqn" -o json > "$SYNC/nvmf4j-id-ctrl.json" 2> "$SYNC/nvmf4j-id-ctrl.err" ||
    { cat "$SYNC/nvmf4j-id-ctrl.err"; note "nvmf4j id-ctrl -o json failed"; rc=1; }
  note "nvmf4j id-ns ${C[*]} --nqn $nqn -n 1 -o json"
  "$NVMF4J" id-ns "${C[@]}" --nqn "$nqn" -n 1 -o json > "$SYNC/nvmf4j-id-ns.json" 2> "$SYNC/nvmf4j-id-ns.err" ||
    { cat "$SYNC/nvmf4j-id-ns.err"; note "nvmf4j id-ns -o json failed"; rc=1; }
  signal host-done
  for name in discover id-ctrl id-ns; do
    [ -s "$SYNC/nvme-$name.json" ] || { note "no nvme-cli output for $name from the guest"; rc=1; }
  done
  [ $rc = 0 ] || return 1
  python3 - "$SYNC" <<'PY' || rc=1
import json, sys
sync = sys.argv[1]

# The differences that are meant to be: (document, key) -> why. Everything else must agree.
INTENTIONAL = {
    ("id-ctrl", "cntlid"): "a controller per connection (dynamic model): the guest's and the host's differ",
}

def jtype(v):
    return {dict: "object", list: "array", str: "string", int: "number", float: "number",
            bool: "boolean", type(None): "null"}[type(v)]

def walk(doc, a, b, path, problems):
    """a: nvme-cli's, b: nvmf4j's."""
    if jtype(a) != jtype(b):
        problems.append("%s: nvme-cli has a %s (%r), nvmf4j a %s (%r)" % (path, jtype(a), a, jtype(b), b))
        return
    if isinstance(a, dict):
        if list(a) != list(b):
            only_a = [k for k in a if k not in b]
            only_b = [k for k in b if k not in a]
            if only_a or only_b:
                problems.append("%s: keys only nvme-cli prints %s, only nvmf4j prints %s" % (path, only_a, only_b))
            else:
                problems.append("%s: same keys, another order" % path)
        for k in a:
            if k in b:
                key = k if path == "" else path + "." + k
                if (doc, key) in INTENTIONAL:
                    continue
                walk(doc, a[k], b[k], key, problems)
    elif isinstance(a, list):
        if len(a) != len(b):
            problems.append("%s: %d entries in nvme-cli's, %d in nvmf4j's" % (path, len(a), len(b)))
        for i, (x, y) in enumerate(zip(a, b)):
            walk(doc, x, y, "%s[%d]" % (path, i), problems)
    elif a != b:
        problems.append("%s: nvme-cli %r, nvmf4j %r" % (path, a, b))

failed = False
for doc in ("discover", "id-ctrl", "id-ns"):
    theirs_text = open("%s/nvme-%s.json" % (sync, doc)).read()
    ours_text = open("%s/nvmf4j-%s.json" % (sync, doc)).read()
    theirs, ours = json.loads(theirs_text), json.loads(ours_text)
    problems = []
    walk(doc, theirs, ours, "", problems)
    # the text, line for line, but for the intentional lines
    skip = tuple('"%s":' % k for (d, k) in INTENTIONAL if d == doc)
    t_lines = [l for l in theirs_text.splitlines() if not l.strip().startswith(skip)]
    o_lines = [l for l in ours_text.splitlines() if not l.strip().startswith(skip)]
    if t_lines != o_lines:
        for i, (x, y) in enumerate(zip(t_lines, o_lines)):
            if x != y:
                problems.append("text line %d: nvme-cli %r, nvmf4j %r" % (i + 1, x, y))
                break
        else:
            problems.append("text: %d lines from nvme-cli, %d from nvmf4j" % (len(t_lines), len(o_lines)))
    keys = len(theirs) if isinstance(theirs, dict) else 0
    if problems:
        failed = True
        for p in problems:
            print("%s: %s" % (doc, p))
    else:
        print("%s: %d keys, types, values and text equal to nvme-cli's%s" % (doc, keys, "".join(
            "; %s differs on purpose (%s)" % (k, why) for (d, k), why in INTENTIONAL.items() if d == doc)))
for (d, k), why in INTENTIONAL.items():
    a = json.load(open("%s/nvme-%s.json" % (sync, d))).get(k)
    b = json.load(open("%s/nvmf4j-%s.json" % (sync, d))).get(k)
    print("intentional: %s %s: nvme-cli %r, nvmf4j %r (%s)" % (d, k, a, b, why))
sys.exit(1 if failed else 0)
PY
  return $rc
}
