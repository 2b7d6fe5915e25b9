#!/usr/bin/env bash
# Runs blkmc_kernel_tests (kernel_unit_test.cpp) on Debian's 6.12 block/,
# unpacked here once. Usage: kernel_unit_test.sh TESTS_BINARY. Exit 77
# (skipped) without the package (apt-get install linux-source-6.12).
set -u
BIN=$1
tar=/usr/src/linux-source-6.12.tar.xz
if [ ! -f "$tar" ]; then
  echo "skipped: Debian's linux-source-6.12 is not installed (apt-get install linux-source-6.12)"
  exit 77
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/linux"
tar -xf "$tar" -C "$T/linux" --strip-components=1 --wildcards "linux-source-6.12/Makefile" \
  "linux-source-6.12/block/*" || exit 1
BLKMC_TEST_KERNEL=$T/linux BLKMC_CACHE=$T/cache "$BIN"
