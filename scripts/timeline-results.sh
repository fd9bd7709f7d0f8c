#!/usr/bin/env bash
# The README's table of the timeline model on the Ethos-U profiles: for
# every shipped network, `hieropt compare` on the built-in profiles
# ethos-u55 and ethos-u65 (which name the timeline model), the cost of no planning, seed004-pipeline, xla-msa and the search, the
# search's stall time and the share of the possible gain it captures
# ((no planning - cost) / (no planning - the timeline bound)). A pair
# that cannot fit gets a row that says so. Usage:
#   scripts/timeline-results.sh [hieropt binary]   (default: go run ./cmd/hieropt)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -gt 0 ]; then hieropt=("$1"); else hieropt=(go run ./cmd/hieropt); fi
echo "| workload | profile | no planning | seed004-pipeline | xla-msa | search | search's stall | captured by search | cheapest |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---|"
for w in $(ls workloads/*.json | xargs -n1 basename | sed 's/\.json$//'); do
  for h in ethos-u55 ethos-u65; do
    if ! out=$("${hieropt[@]}" compare --workload "$w" --hw "$h" --format csv 2>&1); then
      why=$(printf '%s' "$out" | head -1 | sed -e 's/^hieropt: //' -e 's/^workload "[^"]*": //' | cut -c1-110)
      echo "| $w | $h | - | - | - | - | - | - | does not fit: $why... |"
      continue
    fi
    printf '%s\n' "$out" | awk -F, -v w="$w" -v h="$h" '
      NR > 1 { cost[$1] = $2; stall[$1] = $6; cap[$1] = $5 }
      function c(x) { return x == "" ? "-" : sprintf("%.0f", x) }
      END {
        best = ""; bc = 0
        split("no planning,seed004-pipeline,xla-msa", o, ",")
        for (i in o) if (cost[o[i]] != "" && (best == "" || cost[o[i]] + 0 < bc)) { best = o[i]; bc = cost[o[i]] + 0 }
        s = cost["search"] + 0
        verdict = s < bc ? "search, then " best : (s == bc ? "search = " best : best " (search NOT cheapest)")
        printf "| %s | %s | %s | %s | %s | %s | %s (%.1f%%) | %.1f%% | %s |\n", w, h, c(cost["no planning"]), c(cost["seed004-pipeline"]),
          c(cost["xla-msa"]), c(cost["search"]), c(stall["search"]), 100 * stall["search"] / cost["search"], 100 * cap["search"], verdict
      }'
  done
done
