#!/usr/bin/env bash
# Two builds of nvmf4j in one run, in turn (A B, B A, A B ...): bench/run of each checkout, medians per figure, B/A.
#
#   bench/ab.sh DIR_A DIR_B [--rounds 3] [--seconds 3] [--only REGEX] [--json FILE]
#
# E.g. before/after a change: git worktree add --detach /tmp/before <commit>; bench/ab.sh /tmp/before .
# ~1.5 min per build and round with --only qd. The measurement itself is bench/ab.py.
set -euo pipefail
exec python3 "$(dirname "$(readlink -f "$0")")/ab.py" "$@"
