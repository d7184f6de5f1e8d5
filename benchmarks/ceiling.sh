#!/bin/sh
# The ceiling on the real deck (issue 62, item 3): the best response by search (pomcp, guided
# by the shipped dmc network as `durak exploit --method search` builds it on this deck)
# against TARGET at doubling budgets, each a resumable duplicate `durak match` of GAMES
# games (fresh seed SEED + i for the i-th budget); logs and JSON in
# benchmarks/results/ceiling/ as TARGET-dmc-LIMIT.  JOBS (default 2) sets --jobs.
# Run: flock /work/longrun.lock nice -n 19 sh benchmarks/ceiling.sh TARGET SEED GAMES LIMIT...
# Stopped runs resume from their log when run again with the same arguments.
set -e
# Without durak on PATH every budget would "finish" at once, its .txt holding the error.
command -v durak > /dev/null || { echo "ceiling.sh: durak is not on PATH (activate .venv)" >&2; exit 2; }
target=$1; seed=$2; games=$3; shift 3
out=benchmarks/results/ceiling
i=0
for limit in "$@"; do
  spec="pomcp:target=$target,prior=dmc,value=dmc,limit=$limit"
  name="$out/$target-dmc-$limit"
  i=$((i + 1))
  # A finished budget is left as it is: a resumed run would rewrite its table and time.
  grep -q '"complete": true' "$name.json" 2>/dev/null && continue
  resume=""
  [ -s "$name.jsonl" ] && resume="--resume"
  durak match "$spec" "$target" -n "$games" --seed $((seed + i - 1)) -j "${JOBS:-2}" \
    --log "$name.jsonl" $resume --json "$name.json" --force > "$name.txt" 2>&1 || true
done
