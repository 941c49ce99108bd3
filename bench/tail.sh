#!/usr/bin/env bash
# Where the QD1 latency tail comes from (issue 17 item 3): nvmf4j serve + perf -q 1 in several variants (spin
# budgets, pinning, safepoint settings), both JVMs' safepoints logged on CLOCK_MONOTONIC, perf's outliers traced,
# per-thread context switches from /proc; medians of the rounds. Output: table on stdout, JSON in bench/out/.
#
#   bench/tail.sh [--rounds 3] [--seconds 8] [--ramp 2] [--outlier-us 50] [--only REGEX] [--json FILE]
#
# ~15 s per variant and round (7 variants x 3 rounds: ~5.5 min). The measurement itself is bench/tail.py.
set -euo pipefail
exec python3 "$(dirname "$(readlink -f "$0")")/tail.py" "$@"
