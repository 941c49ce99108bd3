# nvmf4j (softiwarp) as the host against the Linux kernel's nvmet-rdma over the guest's siw0:
# `nvmf4j discover` and `nvmf4j identify` at 127.0.0.1:$FWD_PORT (forwarded to 10.0.2.15:4420).
# The kernel's discovery log must list our subsystem with the kernel's own view of its port
# (traddr 10.0.2.15, trsvcid 4420, rdma/ipv4), identify must show Linux's controller (mn "Linux")
# and a 64 MiB namespace of 512-byte blocks; in the guest, nvmet must have created a discovery
# and an NVM controller for nvmf4j, logged no error, and every queue pair must be gone afterwards
# (the host disconnected).
CHECK_TIMEOUT=170

guest_part() {
  . /lab/guest/kernel-target.sh
  local d0 rc=0
  d0=$(dmesg | wc -l)
  kt_setup 64 || { dmesg | tail -20; return 1; }
  kt_serve_host 150 "$d0" || rc=1
  dmesg | tail -n +"$((d0 + 1))" | grep -q 'creating discovery controller' ||
    { note "nvmet never created a discovery controller"; rc=1; }
  dmesg | tail -n +"$((d0 + 1))" | grep -q "creating nvm controller .* for subsystem $KT_NQN" ||
    { note "nvmet never created an NVM controller for $KT_NQN"; rc=1; }
  kt_teardown
  return $rc
}

host_part() {
  kt_host_part host_steps
}

host_steps() {
  local nqn=$1 rc=0 t
  local A=(-t rdma -a 127.0.0.1 -s "$FWD_PORT" --connect-timeout 20)

  note "nvmf4j discover ${A[*]}"
  t=$SECONDS
  "$NVMF4J" discover "${A[@]}" > "$SYNC/discover.txt" 2>&1 || { cat "$SYNC/discover.txt"; note "discover failed"; return 1; }
  note "discover took $((SECONDS - t)) s"; cat "$SYNC/discover.txt"
  "$NVMF4J" discover "${A[@]}" --json > "$SYNC/discover.json" 2> "$SYNC/discover.err" ||
    { cat "$SYNC/discover.json" "$SYNC/discover.err"; note "discover --json failed"; return 1; }
  python3 - "$SYNC/discover.json" "$nqn" <<'PY' || rc=1
import json, sys
log = json.load(open(sys.argv[1])); nqn = sys.argv[2]
recs = log["records"]
mine = [r for r in recs if r["subnqn"] == nqn]
problems = []
if len(mine) != 1:
    problems.append("expected one record for %s, got %d" % (nqn, len(mine)))
else:
    r = mine[0]
    want = {"trtype": "rdma", "adrfam": "ipv4", "subtype": "nvme subsystem", "traddr": "10.0.2.15",
            "trsvcid": "4420", "rdma_qptype": "connected", "rdma_cms": "rdma-cm"}
    for k, v in want.items():
        if str(r.get(k)) != v:
            problems.append("%s: got %r, expected %r" % (k, r.get(k), v))
for p in problems:
    print("discover check:", p)
if problems:
    sys.exit(1)
print("discover check: %d record(s), genctr %s; %s listed at traddr %s trsvcid %s (the kernel's view of its port)"
      % (len(recs), log["genctr"], nqn, mine[0]["traddr"], mine[0]["trsvcid"]))
PY

  note "nvmf4j identify ${A[*]} -n $nqn"
  t=$SECONDS
  "$NVMF4J" identify "${A[@]}" -n "$nqn" > "$SYNC/identify.txt" 2>&1 || { cat "$SYNC/identify.txt"; note "identify failed"; return 1; }
  note "identify took $((SECONDS - t)) s"; cat "$SYNC/identify.txt"
  # without -n: the CLI picks the first NVM subsystem of the kernel's discovery log itself
  note "nvmf4j identify ${A[*]} --json (subsystem from the discovery log)"
  "$NVMF4J" identify "${A[@]}" --json > "$SYNC/identify.json" 2> "$SYNC/identify.err" ||
    { cat "$SYNC/identify.json" "$SYNC/identify.err"; note "identify --json failed"; return 1; }
  python3 - "$SYNC/identify.json" "$nqn" <<'PY' || rc=1
import json, sys
d = json.load(open(sys.argv[1])); nqn = sys.argv[2]
c = d["controller"]; nss = d["namespaces"]
problems = []
if c["subnqn"] != nqn: problems.append("subnqn %r, expected %r" % (c["subnqn"], nqn))
if c["mn"].strip() != "Linux": problems.append("mn %r: not the Linux target?" % c["mn"])
if len(nss) != 1: problems.append("%d namespaces, expected 1" % len(nss))
else:
    n = nss[0]
    if n["nsid"] != 1: problems.append("nsid %s" % n["nsid"])
    if n["block_size"] != 512: problems.append("block size %s, expected 512 (loop device)" % n["block_size"])
    if n["capacity_bytes"] != 64 << 20: problems.append("capacity %s, expected 64 MiB" % n["capacity_bytes"])
    if n["nsze"] != (64 << 20) // 512: problems.append("nsze %s" % n["nsze"])
for p in problems: print("identify check:", p)
if problems: sys.exit(1)
print("identify check: Linux %s, cntlid %d, mdts %d, ioccsz %d (in-capsule %d bytes), kas %d, maxcmd %d, sgls %#x; "
      "nsid 1: %d blocks of %d bytes" % (c["fr"].strip(), c["cntlid"], c["mdts"], c["ioccsz"], c["ioccsz"] * 16 - 64,
      c["kas"], c["maxcmd"], c["sgls"], nss[0]["nsze"], nss[0]["block_size"]))
PY
  return $rc
}
