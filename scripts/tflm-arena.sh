#!/usr/bin/env bash
# The README's table for TFLite Micro users: for each model, the head (the
# arena's non-persistent section) that TFLM's own planner needs and the one
# `hieropt plan tflm` writes; and, where the TFLM harness is at hand
# (HIEROPT_TFLM_HARNESS, or shared/tflm/build.sh beside the repository),
# the least arena (to 16 B) in which the real runtime runs each model,
# found by bisection. Usage:
#   scripts/tflm-arena.sh [model.tflite ...]
# default: testdata/tflite/*.tflite and, if present,
# ../shared/models/tflite/mobilenet_v2_quantized_1x3x224x224.tflite.
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o /tmp/hieropt-tflm-table ./cmd/hieropt
h=/tmp/hieropt-tflm-table
harness="${HIEROPT_TFLM_HARNESS:-}"
if [ -z "$harness" ] && [ -x ../shared/tflm/build.sh ] && command -v g++ >/dev/null; then
  harness=$(../shared/tflm/build.sh | tail -1)
fi
models=("$@")
if [ ${#models[@]} -eq 0 ]; then
  models=(testdata/tflite/*.tflite)
  m=../shared/models/tflite/mobilenet_v2_quantized_1x3x224x224.tflite
  [ -f "$m" ] && models+=("$m")
fi
least() { # least arena in which the harness runs $1
  local lo=0 hi=$((64 << 20)) mid
  while [ $((hi - lo)) -gt 16 ]; do
    mid=$(((lo + hi) / 32 * 16)); [ "$mid" -le "$lo" ] && mid=$((lo + 16))
    if "$harness" "$1" "$mid" 1 >/dev/null 2>&1; then hi=$mid; else lo=$mid; fi
  done
  echo "$hi"
}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "| model | TFLM's head | hieropt's head | saved | plan (proof) | least arena in TFLM: TFLM's plan | hieropt's plan |"
echo "|---|---:|---:|---:|---|---:|---:|"
for m in "${models[@]}"; do
  name=$(basename "$m" .tflite)
  if ! line=$("$h" plan tflm "$m" --arena 64M -o "$tmp/$name.tflite" 2>"$tmp/err"); then
    echo "| $name | - | - | - | $(head -1 "$tmp/err" | sed -e 's/^hieropt: [^:]*: //' -e 's/ (it shares.*//') | - | - |"
    continue
  fi
  # "M: head H B by BY (PROOF); TFLM's own plan G B: saves S B, P%"
  head=$(sed -E 's/.*: head ([0-9]+) B by .*/\1/' <<<"$line")
  by=$(sed -E 's/.* B by ([^(]+) \(([^;)]*).*/\1 (\2)/' <<<"$line")
  greedy=$(sed -E "s/.*TFLM's own plan ([0-9]+) B.*/\1/" <<<"$line")
  pct=$(sed -E 's/.*, ([-0-9.]+%)$/\1/' <<<"$line")
  a=- b=-
  if [ -n "$harness" ] && "$harness" "$m" $((64 << 20)) 1 >/dev/null 2>&1; then
    a=$(least "$m"); b=$(least "$tmp/$name.tflite")
  fi
  echo "| $name | $greedy | $head | $pct | $by | $a | $b |"
done
