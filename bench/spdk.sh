#!/usr/bin/env bash
# SPDK's NVMe/TCP target + spdk_nvme_perf beside nvmf4j (serve --ram 1G + perf over softiwarp) on this machine,
# in one run, alternating; medians of the rounds; figure | SPDK | nvmf4j | ratio, JSON and HTML in bench/out/.
#
#   bench/spdk.sh --spdk DIR [--rounds 3] [--seconds 8] [--ramp 2] [--only REGEX] [--json FILE] [--html FILE]
#
# DIR: an SPDK build from bench/spdk-build.sh (never committed; bench/README.md "SPDK" says how to get the
# sources). ~4 min per round with the defaults. The measurement itself is bench/spdk.py (see its docstring).
set -euo pipefail
exec python3 "$(dirname "$(readlink -f "$0")")/spdk.py" "$@"
