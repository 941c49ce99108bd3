#!/usr/bin/env bash
# SPDK's NVMe/TCP target + spdk_nvme_perf beside nvmf4j (serve --ram 1G + perf, over softiwarp and over NVMe/TCP)
# and the two crossed (SPDK's perf against nvmf4j's TCP target, nvmf4j's TCP perf against SPDK's target) on this
# machine, in one run, alternating; medians of the rounds; figure | SPDK | each side | its ratio to SPDK, JSON and
# HTML in bench/out/.
#
#   bench/spdk.sh --spdk DIR [--sides LIST] [--rounds 3] [--seconds 8] [--ramp 2] [--only REGEX] [--json FILE]
#                 [--html FILE]
#
# DIR: an SPDK build from bench/spdk-build.sh (never committed; bench/README.md "SPDK" says how to get the
# sources). LIST: comma-separated sides (default all six). About 80 s per side per round with the defaults. The
# measurement itself is bench/spdk.py (see its docstring).
set -euo pipefail
exec python3 "$(dirname "$(readlink -f "$0")")/spdk.py" "$@"
