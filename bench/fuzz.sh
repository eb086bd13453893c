#!/usr/bin/env bash
# Runs the libFuzzer harnesses of fuzz/ (bench/README.md, "Fuzzing"): builds the `fuzz`
# preset into build-fuzz/ when needed, then runs each harness, one at a time and nice'd,
# for N executions on a fresh copy of its seed corpus (build-fuzz/fuzz/corpus/<format>/)
# with its dictionary (fuzz/<format>.dict), and prints per target: executions, execs/s,
# coverage (cov = covered edges, ft = features, from libFuzzer's final status line),
# corpus size (seeds -> after) and the findings (crash-*, leak-*, timeout-*, oom-* files,
# each with the first line of its report, got by replaying it).
#
#   bench/fuzz.sh [N] [TARGET...]        N executions per target (default 100000);
#                                        TARGET: te trace_script trace_json npy lsproj relay tvmscript records
# Options (before N):
#   --time S     also stop each target after S seconds (-max_total_time)
#   --fork       keep going after a finding (-fork=1 -ignore_crashes/ooms/timeouts=1),
#                so one run collects several findings; N is then ignored (use --time)
#   --restart    one process at a time, started again on the grown corpus after each
#                finding until --time is used (N executions per session): for the slow
#                trace harnesses, where --fork's jobs spend their time re-reading seeds
#   --out DIR    run directory (default build-fuzz/fuzz/runs): DIR/<target>/ holds the
#                corpus, the findings and libFuzzer's log
#   --timeout S  an input running longer than S seconds is a finding (default 10)
#   --jobs J     J fuzzing processes (libFuzzer -fork=J, going on after findings as --fork);
#                N is then the executions of all of them together
#   --ub         the `fuzz-ub` preset (build-fuzz-ub/: UBSan only, no ASan), several times
#                faster on the trace harnesses, whose time goes to ASan's allocator under
#                isl; afterwards every input of the grown corpus is replayed once through
#                the ASan + UBSan harness of build-fuzz/, whose findings count as well
# The exit status is 1 when any target had a finding.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build-fuzz"
preset=fuzz
out=""
jobs=0
ub=0
time_limit=0
fork=0
restart=0
timeout=10
while [ $# -gt 0 ]; do
  case "$1" in
    --time) time_limit="$2"; shift 2 ;;
    --fork) fork=1; shift ;;
    --restart) restart=1; shift ;;
    --out) out="$2"; shift 2 ;;
    --timeout) timeout="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --ub) ub=1; build="$root/build-fuzz-ub"; preset=fuzz-ub; shift ;;
    -h|--help) sed -n '2,28p' "$0"; exit 0 ;;
    *) break ;;
  esac
done
if [ "$restart" -eq 1 ] && [ "$time_limit" -eq 0 ]; then echo "fuzz.sh: --restart needs --time S" >&2; exit 2; fi
runs=100000
if [ $# -gt 0 ] && [[ "$1" =~ ^[0-9]+$ ]]; then runs="$1"; shift; fi
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(te trace_script trace_json npy lsproj relay tvmscript records)

[ -n "$out" ] || out="$build/fuzz/runs"
build_preset() { # build dir, preset
  if [ ! -f "$1/CMakeCache.txt" ]; then
    (cd "$root" && cmake --preset "$2" >/dev/null)
  fi
  nice -n 10 cmake --build "$1" --target fuzz >/dev/null 2>&1 ||
    { echo "fuzz.sh: building the $2 preset failed; run: cmake --build $1 --target fuzz" >&2; exit 2; }
}
build_preset "$build" "$preset"
asan_build="$root/build-fuzz"
[ "$ub" -eq 0 ] || build_preset "$asan_build" fuzz

max_len=65536 # fuzz_support.h: kMaxInputBytes
any_finding=0
summary=()
for t in "${targets[@]}"; do
  bin="$build/fuzz/loopscape-fuzz-$t"
  seeds="$build/fuzz/corpus/$t"
  [ -x "$bin" ] || { echo "fuzz.sh: no harness '$t' ($bin)" >&2; exit 2; }
  dir="$out/$t"
  rm -rf "$dir"
  mkdir -p "$dir/corpus" "$dir/findings"
  cp "$seeds"/* "$dir/corpus/"
  seed_count=$(ls "$dir/corpus" | wc -l)
  args=(-max_len=$max_len -timeout="$timeout" -rss_limit_mb=2048 -print_final_stats=1
        -dict="$root/fuzz/$t.dict" -artifact_prefix="$dir/findings/")
  if [ "$time_limit" -gt 0 ] && [ "$restart" -eq 0 ]; then args+=(-max_total_time="$time_limit"); fi
  if [ "$jobs" -gt 0 ]; then
    args+=(-fork="$jobs" -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1 -runs="$runs")
  elif [ "$fork" -eq 1 ]; then
    args+=(-fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1)
  else
    args+=(-runs="$runs")
  fi
  echo "== $t: $bin ${args[*]} $dir/corpus" >&2
  start=$(date +%s)
  : >"$dir/fuzz.log"
  session=0
  while :; do
    session=$((session + 1))
    session_args=("${args[@]}")
    if [ "$restart" -eq 1 ]; then
      left=$((time_limit - ($(date +%s) - start)))
      [ "$left" -gt 5 ] || break
      session_args+=(-max_total_time="$left")
    fi
    set +e
    (cd "$dir" && nice -n 10 "$bin" "${session_args[@]}" "$dir/corpus" >"$dir/session.log" 2>&1)
    set -e
    cat "$dir/session.log" >>"$dir/fuzz.log"
    [ "$restart" -eq 1 ] && grep -q '^==[0-9]*== *ERROR\|^SUMMARY\|deadly signal\|ALARM\|out-of-memory' "$dir/session.log" || break
  done
  rm -f "$dir/session.log"
  seconds=$(( $(date +%s) - start ))
  # Executions: the final stats of each session (single process) or the last status line
  # (fork); execs/s over the whole run.
  execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$dir/fuzz.log" | awk '{n += $2} END {if (NR) print n}' || true)
  status=$(grep -E '^#[0-9]+:?[[:space:]].*cov: ' "$dir/fuzz.log" | tail -1 || true)
  if [ -z "$execs" ]; then execs=$(sed -nE 's/^#([0-9]+):?[[:space:]].*/\1/p' <<<"$status"); fi
  rate=$(( ${execs:-0} / (seconds > 0 ? seconds : 1) ))
  cov=$(sed -nE 's/.*cov: ([0-9]+).*/\1/p' <<<"$status")
  ft=$(sed -nE 's/.*ft: ([0-9]+).*/\1/p' <<<"$status")
  corpus=$(ls "$dir/corpus" | wc -l)
  if [ "$ub" -eq 1 ]; then
    # Every input of the grown corpus once through the ASan + UBSan harness; an input it
    # fails on is copied to findings/asan-<name>, and the replay goes on after it.
    asan_bin="$asan_build/fuzz/loopscape-fuzz-$t"
    mapfile -t left < <(ls "$dir/corpus")
    while [ ${#left[@]} -gt 0 ]; do
      set +e
      (cd "$dir/corpus" && nice -n 10 "$asan_bin" -timeout="$timeout" -rss_limit_mb=2048 "${left[@]}" \
        >"$dir/asan-replay.log" 2>&1)
      rc=$?
      set -e
      [ "$rc" -ne 0 ] || break
      bad=$(sed -nE 's/^Running: (.*)$/\1/p' "$dir/asan-replay.log" | tail -1)
      [ -n "$bad" ] || { echo "fuzz.sh: the ASan replay of $t failed before any input ($dir/asan-replay.log)" >&2; break; }
      cp "$dir/corpus/$bad" "$dir/findings/asan-$bad"
      for i in "${!left[@]}"; do
        if [ "${left[$i]}" = "$bad" ]; then left=("${left[@]:$((i + 1))}"); break; fi
      done
    done
  fi
  findings=()
  while IFS= read -r f; do findings+=("$f"); done < <(ls "$dir/findings" 2>/dev/null | grep -E '^(crash|leak|timeout|oom|asan)-' || true)
  summary+=("$(printf '%-13s %10s %8s %7s %7s %6s -> %-6s %4s %6ss' "$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" \
                "${ft:-?}" "$seed_count" "$corpus" "${#findings[@]}" "$seconds")")
  [ "$ub" -eq 0 ] || summary+=("    the corpus of $corpus inputs replayed once through the ASan + UBSan harness too")
  for f in "${findings[@]}"; do
    any_finding=1
    # The first line of the report: replay the input once and keep the first error line.
    replay_bin="$bin"
    [[ "$f" != asan-* ]] || replay_bin="$asan_build/fuzz/loopscape-fuzz-$t"
    first=$(cd "$dir" && { timeout $((timeout * 3)) nice -n 10 "$replay_bin" -timeout="$timeout" -rss_limit_mb=2048 \
              "$dir/findings/$f" 2>&1 || true; } |
            grep -m1 -E 'ERROR: |runtime error: |internal error: |fuzz harness: |terminate called|Assertion|ALARM|out-of-memory' ||
            true)
    [ -n "$first" ] || first="(no report line on replay)"
    summary+=("    $t/findings/$f: $(sed -E 's/^==[0-9]+==//' <<<"$first" | cut -c1-200)")
  done
done

echo
printf '%-13s %10s %8s %7s %7s %16s %4s %7s\n' target execs execs/s cov ft "corpus seeds->" find time
printf '%s\n' "${summary[@]}"
echo "(runs, logs and findings under $out)"
exit $any_finding
