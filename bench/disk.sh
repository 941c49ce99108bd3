#!/usr/bin/env bash
# One file of a real disk three ways in one run, alternating, medians of the rounds: fio (io_uring, direct) on the
# file, SPDK's NVMe/TCP target over an AIO bdev of it (with --spdk DIR), `nvmf4j serve --file` + `nvmf4j perf`;
# figure | fio | fio busy (both cores busy, as a target and host keep them) | SPDK aio | nvmf4j | ratios,
# the disk and the load, JSON in bench/out/
#
#   bench/disk.sh [--dir DIR | --file PATH] [--spdk DIR] [--rounds 3] [--seconds 8] [--ramp 2]
#                 [--nvmf4j-arg ARG]... [--reader-arg ARG]... [--load-arg ARG]... [--load-cpu N]
#                 [--load-nice N] [--floor-mode poll|wait] [--only REGEX] [--keep-file] [--json FILE]
#
# Default file: 2 GiB of random data created in /var/tmp/nvmf4j-disk-bench (never in the repository), removed at
# the end unless --keep-file. ~4-5 min per round with SPDK. The measurement itself is bench/disk.py (its docstring
# says what each side runs).
set -euo pipefail
exec python3 "$(dirname "$(readlink -f "$0")")/disk.py" "$@"
