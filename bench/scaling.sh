#!/usr/bin/env bash
# How an exhaustive check and a swarm scale with the cores of one machine: the table of
# docs/sharding.md ("Measure it on your machine"), in one run that needs only node and an
# interleave to run (no npm, no tsx, no dev dependencies), so it also runs on a borrowed
# machine from the packed package.
#
#   bench/scaling.sh OUTDIR                    # airflow items=9, exchange shards 4 8 16, swarm 1 2 4 8 16
#   ITEMS=6 SHARDS="2 4" WORKERS="1 2" RUNS=300 bench/scaling.sh OUTDIR   # a quick pass
#   IL=/path/to/node_modules/interleave/bin/interleave.js bench/scaling.sh OUTDIR
#
# Rows: one process (--no-por, as the shards run), then for each n all n exchange shards
# started at once (--exchange, one directory) and merged; then swarm runs of amber-loop with
# W worker threads. Wall and CPU are bash's `time` over each row's processes (CPU: user +
# system of every process of the row). Result files, merge output and each row's log stay
# in OUTDIR; the table is printed and written to OUTDIR/table.md.
set -euo pipefail
out=${1:?usage: bench/scaling.sh OUTDIR (see the head of this file)}
here=$(cd "$(dirname "$0")" && pwd)
IL=${IL:-$here/../bin/interleave.js}
ITEMS=${ITEMS:-9}
SHARDS=${SHARDS:-4 8 16}
WORKERS=${WORKERS:-1 2 4 8 16}
RUNS=${RUNS:-3000}
[ -f "$IL" ] || { echo "scaling.sh: no interleave at $IL (set IL to bin/interleave.js of a clone or an installed package)" >&2; exit 2; }
mkdir -p "$out"
[ -z "$(ls -A "$out")" ] || { echo "scaling.sh: $out is not empty; give a new or empty directory" >&2; exit 2; }
out=$(cd "$out" && pwd)
model=(airflow-checkpoints --param "items=$ITEMS" --param taskConcurrency=2 --strategy dfs --max-states 100000000 --no-determinism-check)
export NO_COLOR=1
unset INTERLEAVE_SHARD JOB_COMPLETION_INDEX SLURM_ARRAY_TASK_ID || true
TIMEFORMAT='%R %U %S'

# Runs "$@" (a shell function or command) under bash's time; prints "wall cpu".
timed() {
  local t
  t=$( { time "$@" >/dev/null 2>&1; } 2>&1 | tail -1)
  awk '{ printf "%.2f %.2f\n", $1, $2 + $3 }' <<<"$t"
}
# Stops the script when a row's processes left no result (their logs say why).
need() { for f in "$@"; do [ -s "$f" ] || { echo "scaling.sh: no result $f; see the .log files in $out" >&2; exit 1; }; done; }
# Distinct states summed over result files.
states() { node -e 'let s=0;for(const f of process.argv.slice(1))s+=JSON.parse(require("fs").readFileSync(f,"utf8")).stats.distinctStates;console.log(s)' "$@"; }

one() { node "$IL" check "${model[@]}" --no-por --result "$out/one.json" >"$out/one.log" 2>&1 || [ $? -eq 1 ]; }
shards() {
  local n=$1 i pids=()
  for i in $(seq 1 "$n"); do
    node "$IL" check "${model[@]}" --shard "$i/$n" --exchange "$out/run-$n" --result "$out/x$n-$i.json" >"$out/x$n-$i.log" 2>&1 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || [ $? -eq 1 ]; done
}
swarm() { node "$IL" check amber-loop --param design=read-at-endchannel --strategy swarm --runs "$RUNS" --workers "$1" --json >"$out/swarm-$1.json" 2>"$out/swarm-$1.log" || [ $? -eq 1 ]; }

{
  echo "machine: $(nproc) cores, $(uname -m), node $(node --version), load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?'), $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "model: check ${model[*]}"
  echo
  echo "| run | processes | wall s | CPU s | speed-up (wall) | CPU / one process | states / one process |"
  echo "|---|--:|--:|--:|--:|--:|--:|"
} | tee "$out/table.md"
read -r w1 c1 < <(timed one) || true
need "$out/one.json"
s1=$(states "$out/one.json")
echo "| one process, --no-por | 1 | $w1 | $c1 | 1.00 | 1.00 | 1.00 ($s1 states) |" | tee -a "$out/table.md"
for n in $SHARDS; do
  read -r w c < <(timed shards "$n") || true
  need $(for i in $(seq 1 "$n"); do echo "$out/x$n-$i.json"; done)
  node "$IL" merge "$out"/x"$n"-*.json --out "$out/merged-$n.json" >"$out/merge-$n.txt" 2>&1 || true
  s=$(states "$out"/x"$n"-*.json)
  awk -v n="$n" -v w="$w" -v c="$c" -v s="$s" -v w1="$w1" -v c1="$c1" -v s1="$s1" \
    'BEGIN { printf "| --exchange, all at once | %d | %.2f | %.2f | %.2f | %.2f | %.3f |\n", n, w, c, w1 / w, c / c1, s / s1 }' | tee -a "$out/table.md"
done
{
  echo
  echo "swarm: check amber-loop --param design=read-at-endchannel --strategy swarm --runs $RUNS"
  echo
  echo "| workers | wall s | CPU s | speed-up over W = 1 | worker start-up s (mean) |"
  echo "|--:|--:|--:|--:|--:|"
} | tee -a "$out/table.md"
ws1=
for wk in $WORKERS; do
  read -r w c < <(timed swarm "$wk") || true
  need "$out/swarm-$wk.json"
  ws1=${ws1:-$w}
  up=$(node -e 'const j=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));const u=j.swarm&&j.swarm.workerStartupMs;console.log(u?(u.mean/1000).toFixed(3):"-")' "$out/swarm-$wk.json")
  awk -v k="$wk" -v w="$w" -v c="$c" -v w1="$ws1" -v up="$up" 'BEGIN { printf "| %d | %.2f | %.2f | %.2f | %s |\n", k, w, c, w1 / w, up }' | tee -a "$out/table.md"
done
echo
echo "merge output (exchange, largest n): $out/merge-${SHARDS##* }.txt"
