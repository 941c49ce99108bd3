#!/usr/bin/env bash
# Allocation evidence (issue 8: "no allocation per I/O in steady state"): one 30 s 4 KiB randread QD32 run of
# `nvmf4j perf` against `nvmf4j serve --ram 1G` (softiwarp, 127.0.0.1), both JVMs with -Xlog:gc* and a JFR
# recording (settings=profile). Prints the young collections inside perf's measured window for target and
# initiator, and the top allocating frames of jdk.ObjectAllocationSample inside the window.
#
#   bench/alloc.sh [--seconds N] [--ramp N] [--alloc-runs 2]     (about 1 minute; 2 runs: also randwrite)
#
# Logs and recordings: bench/out/alloc-<date>/ (open the .jfr files in JDK Mission Control for more).
exec "$(dirname "$(readlink -f "$0")")/run" --alloc "$@"
