# nvmf4j get-feature beside nvme-cli's, against the same target: the guest kernel's nvmet-rdma over siw0. In the
# guest, nvme-cli (Debian 12: 2.3) connects the guest kernel host and runs `nvme get-feature /dev/nvmeX ARGS` for
# each case below (one feature, -H fields, -s 3 capabilities, the host identifier, and no -f: the walk over every
# feature, which nvme-cli ends at the first error other than Invalid Field), then disconnects; on the host
# `nvmf4j get-feature ARGS` asks the same target (127.0.0.1:$FWD_PORT, forwarded to 10.0.2.15:4420). The host
# compares stdout line for line and success/failure of each case; error text goes to stderr in both tools and
# differs in wording (nvme-cli: "NVMe status: ...", nvmf4j: "nvmf4j: get-feature failed: ..."), so it is printed,
# not compared. Intentional differences, listed in INTENTIONAL below:
#   0x81 (Host Identifier) data: each host sends its own host ID; the header line must still agree.
#   no -f (the walk): nvme-cli 2.3 compares the status with its DNR/More bits against plain Invalid Field, so on
#     nvmet (which sets DNR) its walk ends at FID 00h with nothing printed; nvmf4j compares without the flags, as
#     later nvme-cli does (filter_out_flags()), and prints the features the walk finds up to the first other
#     error (on nvmet: FID 03h, whose 4096-byte buffer nvmet answers with SGL Length Invalid, so nothing): its
#     lines must be exactly nvme-cli's own single-feature lines for those features, in FID order.
CHECK_TIMEOUT=300

# name|arguments (the same for both tools)
GF_CASES='fid01|-f 1
fid02|-f 2
fid04|-f 4
fid05|-f 5
fid06|-f 6
fid07|-f 7
fid07-H|-f 7 -H
fid07-sel3|-f 7 -s 3
fid08|-f 8
fid09|-f 9
fid0a|-f 0xa
fid0b|-f 0xb
fid0b-H|-f 0xb -H
fid0f|-f 0xf
fid0f-H|-f 0xf -H
fid0e|-f 0xe
fid81|-f 0x81 -c 1
all|'

guest_part() {
  . /lab/guest/kernel-target.sh
  local d0 rc=0 dev ctrl name args
  d0=$(dmesg | wc -l)
  kt_setup 64 || { dmesg | tail -20; return 1; }
  modprobe -a nvme-fabrics nvme-rdma || { note "cannot load nvme-rdma"; return 1; }
  note "$(nvme version 2>&1)"
  if kt_local_connect; then
    dev=$KT_HOST_DEV ctrl=$KT_HOST_CTRL
    while IFS='|' read -r name args; do
      # shellcheck disable=SC2086 # the arguments are words on purpose
      nvme get-feature "$ctrl" $args > "$SYNC/nvme-gf-$name.out" 2> "$SYNC/nvme-gf-$name.err"
      echo $? > "$SYNC/nvme-gf-$name.rc"
    done <<< "$GF_CASES"
  else
    rc=1
  fi
  kt_local_disconnect
  kt_serve_host 240 "$d0" || rc=1
  kt_teardown
  return $rc
}

host_part() {
  local nqn rc=0 name args
  nqn=$(await kernel-target-ready 220) || return 1
  local C=(--traddr 127.0.0.1 --trsvcid "$FWD_PORT" --connect-timeout 20 --nqn "$nqn")
  while IFS='|' read -r name args; do
    note "nvmf4j get-feature ${C[*]} $args"
    # shellcheck disable=SC2086
    "$NVMF4J" get-feature "${C[@]}" $args > "$SYNC/nvmf4j-gf-$name.out" 2> "$SYNC/nvmf4j-gf-$name.err"
    echo $? > "$SYNC/nvmf4j-gf-$name.rc"
  done <<< "$GF_CASES"
  signal host-done
  [ -s "$SYNC/nvme-gf-fid07.out" ] || { note "no nvme-cli output from the guest"; return 1; }
  python3 - "$SYNC" "$GF_CASES" <<'PY' || rc=1
import sys
sync, cases = sys.argv[1], [l.split("|", 1) for l in sys.argv[2].splitlines() if l]

# (case) -> why its data lines may differ; the first (header) line must agree all the same
INTENTIONAL = {
    "fid81": "each host sends its own host identifier: the 16 data bytes differ, the header line does not",
    "all": "nvme-cli 2.3 ends its walk at FID 00h (DNR compared); nvmf4j's lines are nvme-cli's -f lines",
}
SINGLE = [(n, a) for n, a in cases if n.startswith("fid") and "-" not in n and n != "fid81"]

def read(tool, name, ext):
    try:
        return open("%s/%s-gf-%s.%s" % (sync, tool, name, ext)).read()
    except FileNotFoundError:
        return None

failed = False
for name, args in cases:
    t_out, o_out = read("nvme", name, "out"), read("nvmf4j", name, "out")
    t_rc, o_rc = (read("nvme", name, "rc") or "?").strip(), (read("nvmf4j", name, "rc") or "?").strip()
    problems = []
    if (t_rc == "0") != (o_rc == "0"):
        problems.append("nvme-cli exit %s, nvmf4j exit %s" % (t_rc, o_rc))
    t_lines, o_lines = (t_out or "").splitlines(), (o_out or "").splitlines()
    if name == "all":
        if t_lines:
            problems.append("nvme-cli 2.3 printed %d lines in its walk; this check expects none" % len(t_lines))
        # what nvme-cli prints for each feature alone, for the features nvmf4j's walk went through
        t_lines = []
        for n, a in SINGLE:
            fid = int(a.split()[1], 0)
            if o_lines and fid <= int(o_lines[-1].split(":")[1].split()[0], 16):
                t_lines += (read("nvme", n, "out") or "").splitlines()
    elif name in INTENTIONAL:
        t_lines, o_lines = t_lines[:1], o_lines[:1]
    if t_lines != o_lines:
        for i, (x, y) in enumerate(zip(t_lines, o_lines)):
            if x != y:
                problems.append("line %d: nvme-cli %r, nvmf4j %r" % (i + 1, x, y))
                break
        else:
            problems.append("%d lines from nvme-cli, %d from nvmf4j" % (len(t_lines), len(o_lines)))
    err = ""
    if t_rc != "0" or o_rc != "0":
        err = " (stderr: nvme-cli %r, nvmf4j %r)" % ((read("nvme", name, "err") or "").strip()[:100],
                                                     (read("nvmf4j", name, "err") or "").strip()[:100])
    if problems:
        failed = True
        print("get-feature %s [%s]: %s%s" % (args, name, "; ".join(problems), err))
        print("  nvme-cli: %r" % (t_out or "")[:400])
        print("  nvmf4j:   %r" % (o_out or "")[:400])
    else:
        first = t_lines[0] if t_lines else "(no output)"
        print("get-feature %s: %d line(s) equal, exit %s/%s: %s%s%s" % (args or "(all)", len(t_lines), t_rc, o_rc,
              first, err, "; " + INTENTIONAL[name] if name in INTENTIONAL else ""))
sys.exit(1 if failed else 0)
PY
  return $rc
}
