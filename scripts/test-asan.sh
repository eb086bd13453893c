#!/usr/bin/env bash
# Builds everything but the GUI with AddressSanitizer and UndefinedBehaviorSanitizer (the
# `asan` preset: Debug, LOOPSCAPE_SANITIZE=ON; LOOPSCAPE_GUI=OFF) into build-asan/ and runs
# the test suites of that build. .ci/run calls it when CI=true; extra arguments go to ctest
# (e.g. scripts/test-asan.sh -R poly).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset asan -DLOOPSCAPE_GUI=OFF
cmake --build build-asan
cd build-asan
# A finding (memory error, leak, undefined behaviour) stops the test with a report. No test
# is excluded; the ones that crash kernels on purpose adjust ASAN_OPTIONS in
# tests/CMakeLists.txt.
# intercept_tls_get_addr=0: LeakSanitizer's tracer died of SIGSEGV at the exit of processes
# that had loaded and closed a library using dynamic TLS ("Tracer caught signal 11": with
# log_threads it reads a dynamic-TLS range at 0x1050 or 0x1778, by all signs a stale entry
# that GCC 12's libsanitizer keeps from __tls_get_addr once a loaded library is closed,
# glibc 2.36): first codegen.verify, then every loopscape-cli run once it linked XGBoost.
# Not intercepting __tls_get_addr drops that bookkeeping; leak checking stays on.
export ASAN_OPTIONS="detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:intercept_tls_get_addr=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$PWD/../scripts/lsan-qt.supp"
QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j "$(nproc)" "$@"
