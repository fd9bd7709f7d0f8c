#!/usr/bin/env bash
# hieropt's cost bound (the "cost bound" line of `hieropt bounds`: the
# whole-program bound, bounds.Whole, or where no capacity can bind or it
# is lower, the per-timestep one) against the mixed-integer model of the planning problem solved
# by HiGHS (milp_bound.py, a tool outside this repository, in
# ../shared/tools; Debian's python3-scipy), on every shipped workload and
# seed-model copy of the built-in profiles (testdata/hw/seed003). Prints,
# per pair, ours, the MILP tool's LP value and its bound (the MILP's dual
# bound, the LP's where that is higher), whether the MILP solved within the
# limit, ours below the MILP's bound in %, then the mean over the pairs
# where the MILP solved. Usage:
#   scripts/bound-vs-milp.sh [hieropt binary]   (default: go run ./cmd/hieropt)
# Environment: MILP_TIME (the MILP's time limit per pair, s; default 20),
# MILP_TOOL (default ../shared/tools/milp_bound.py, else
# /work/shared/tools/milp_bound.py), MILP_CACHE (a directory: the MILP's
# JSON per pair is kept there and reused, so that reruns measure only
# ours), PAIRS (a regular expression on "workload profile"; default all),
# PLANS=1 (also plan each pair with `optimize`, default settings, and print
# the plan's cost above the MILP's bound: where the MILP solved, above the
# optimum of the model every plan is a solution of).
# Without the tool or scipy it says so and exits 0.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -gt 0 ]; then hieropt=("$1"); else
  go build -o /tmp/bound-vs-milp-hieropt.$$ ./cmd/hieropt
  hieropt=(/tmp/bound-vs-milp-hieropt.$$)
  trap 'rm -f /tmp/bound-vs-milp-hieropt.$$' EXIT
fi
tool=${MILP_TOOL:-}
for c in ../shared/tools/milp_bound.py /work/shared/tools/milp_bound.py; do
  if [ -z "$tool" ] && [ -f "$c" ]; then tool=$c; fi
done
if [ -z "$tool" ] || [ ! -f "$tool" ]; then
  echo "bound-vs-milp: skipped: milp_bound.py not found (set MILP_TOOL)"; exit 0
fi
if ! /usr/bin/python3 -c 'import scipy.optimize' 2>/dev/null; then
  echo "bound-vs-milp: skipped: /usr/bin/python3 has no scipy (Debian: python3-scipy)"; exit 0
fi
limit=${MILP_TIME:-20}
cache=${MILP_CACHE:-}
[ -n "$cache" ] && mkdir -p "$cache"
plans=${PLANS:-}
if [ -n "$plans" ]; then
  echo "| workload | profile | ours | \`bounds\` time | MILP tool's LP | MILP tool's bound | MILP | ours below the MILP's bound | plan | plan above the MILP's bound |"
  echo "|---|---|---:|---:|---:|---:|---|---:|---:|---:|"
else
  echo "| workload | profile | ours | \`bounds\` time | MILP tool's LP | MILP tool's bound | MILP | ours below the MILP's bound |"
  echo "|---|---|---:|---:|---:|---:|---|---:|"
fi
planfile=$(mktemp)
trap 'rm -f "$planfile" /tmp/bound-vs-milp-hieropt.$$' EXIT
sum=0; n=0; psum=0; pworst=0; pn=0; asum=0; aworst=0; an=0
for wf in workloads/*.json; do
  w=$(basename "$wf" .json)
  for hf in testdata/hw/seed003/*.yaml; do
    h=$(basename "$hf" .yaml)
    if [ -n "${PAIRS:-}" ] && ! [[ "$w $h" =~ $PAIRS ]]; then continue; fi
    t0=$(date +%s.%N)
    if ! out=$("${hieropt[@]}" bounds --workload "$wf" --hw "$hf" 2>&1); then
      continue # does not fit: no bound either way
    fi
    t1=$(date +%s.%N)
    ours=$(printf '%s\n' "$out" | awk '$1 == "cost" && $2 == "bound" { print $3 }')
    [ -z "$ours" ] && continue
    js=""
    if [ -n "$cache" ] && [ -s "$cache/$w.$h.json" ]; then js=$(cat "$cache/$w.$h.json"); fi
    if [ -z "$js" ]; then
      js=$(/usr/bin/python3 "$tool" "$wf" "$hf" --json --time-limit "$limit" --lp-time-limit "$limit" 2>/dev/null | tail -1) || js=""
      if [ -n "$cache" ] && [ -n "$js" ]; then printf '%s\n' "$js" >"$cache/$w.$h.json"; fi
    fi
    if [ -z "$js" ] || ! printf '%s' "$js" | jq -e . >/dev/null 2>&1; then
      printf '| %s | %s | %.2f | %.2fs | - | - | failed | - |\n' "$w" "$h" "$ours" "$(echo "$t1 - $t0" | bc)"
      continue
    fi
    lp=$(printf '%s' "$js" | jq -r '.lp.value // empty')
    bound=$(printf '%s' "$js" | jq -r '.bound // empty')
    solved=$(printf '%s' "$js" | jq -r 'if .milp == null then "none" elif .milp.exact_optimum_of_R then "solved" else "time limit" end')
    gap=$(awk -v o="$ours" -v b="$bound" 'BEGIN { if (b > 0) printf "%.2f%%", 100 * (b - o) / b; else print "-" }')
    extra=""
    if [ -n "$plans" ]; then
      pc=$("${hieropt[@]}" optimize --workload "$wf" --hw "$hf" -o "$planfile" 2>&1 | awk '$1 == "cost" { print $2; exit }')
      pgap=$(awk -v c="$pc" -v b="$bound" 'BEGIN { if (b > 0 && c > 0) printf "%.2f", 100 * (c - b) / b; else print "" }')
      extra=$(printf ' %.2f | %s%% |' "${pc:-0}" "${pgap:--}")
      if [ -n "$pgap" ]; then
        asum=$(awk -v s="$asum" -v g="$pgap" 'BEGIN { print s + g }'); an=$((an + 1))
        aworst=$(awk -v w="$aworst" -v g="$pgap" 'BEGIN { print (g > w ? g : w) }')
        if [ "$solved" = solved ]; then
          psum=$(awk -v s="$psum" -v g="$pgap" 'BEGIN { print s + g }'); pn=$((pn + 1))
          pworst=$(awk -v w="$pworst" -v g="$pgap" 'BEGIN { print (g > w ? g : w) }')
        fi
      fi
    fi
    printf '| %s | %s | %.2f | %.2fs | %s | %s | %s | %s |%s\n' "$w" "$h" "$ours" "$(echo "$t1 - $t0" | bc)" \
      "$(printf '%.2f' "${lp:-0}")" "$(printf '%.2f' "${bound:-0}")" "$solved" "$gap" "$extra"
    if [ "$solved" = solved ] && [ -n "$bound" ]; then
      sum=$(awk -v s="$sum" -v o="$ours" -v b="$bound" 'BEGIN { print s + (b > 0 ? 100 * (b - o) / b : 0) }')
      n=$((n + 1))
    fi
  done
done
awk -v s="$sum" -v n="$n" 'BEGIN { if (n) printf "\nours below the MILP tool'"'"'s bound where the MILP solved: mean %.2f%% (%d pairs)\n", s / n, n }'
if [ -n "$plans" ]; then
  awk -v s="$psum" -v w="$pworst" -v n="$pn" 'BEGIN { if (n) printf "plans above the optimum where the MILP solved: mean %.2f%%, worst %.2f%% (%d pairs)\n", s / n, w, n }'
  awk -v s="$asum" -v w="$aworst" -v n="$an" 'BEGIN { if (n) printf "plans above the MILP tool'"'"'s bound on every pair: mean %.2f%%, worst %.2f%% (%d pairs)\n", s / n, w, n }'
fi
