#!/usr/bin/env bash
# Runs the fuzz targets side by side for SECONDS each (default 30) on what fuzz/build.sh built in
# OUT (default .build/fuzz), starting from the committed seeds in fuzz/corpus/<target>/.
# New inputs go to OUT/corpus/<target>/ (not committed); a crash leaves OUT/artifacts/<target>/crash-*
# and fails the run. Usage: fuzz/run.sh [SECONDS] [OUT]
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
out=${2:-.build/fuzz}
# A crash is reported by libFuzzer and ASan; Swift's own backtracer would only hold the run up.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:symbolize=1}

pids=()
targets=(varlink config markup)
for target in "${targets[@]}"; do
  mkdir -p "$out/corpus/$target" "$out/artifacts/$target"
  "$out/fuzz-$target" -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$out/artifacts/$target/" \
    "$out/corpus/$target" "fuzz/corpus/$target" >"$out/$target.log" 2>&1 &
  pids+=($!)
done
status=0
for index in "${!targets[@]}"; do
  target=${targets[$index]}
  if ! wait "${pids[$index]}"; then
    status=1
    echo "fuzz: $target FAILED; the end of $out/$target.log:" >&2
    tail -n 40 "$out/$target.log" >&2
  fi
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$out/$target.log" | awk '{print $2}')
  corpus=$(ls "$out/corpus/$target" | wc -l)
  echo "fuzz: $target: ${runs:-?} executions in ${seconds} s, $corpus new corpus inputs, $(ls "$out/artifacts/$target" | wc -l) crashes"
done
exit "$status"
