#!/usr/bin/env bash
# perf-compare.sh BASE [api_load options...]: is the working tree slower than BASE on this machine?
#
# Checks BASE (any commit-ish) out in a temporary git worktree, then in one job measures BASE's server
# and the working tree's (uncommitted changes included) with the same tool, this tree's
# `python -m benches.api_load`, both servers up and their runs taking turns (base, branch, branch,
# base, ...) so that the machine's changing load falls on both alike. Every scenario that regressed (see benches/api_load/compare.py: ops/s
# down by more than 20%, p99 up by more than 40%, any failed request) is measured again, base then
# branch; the comparison fails only when the same scenario regressed both times.
#
#   benches/perf-compare.sh main                 # the full set of scenarios, 3 runs of 10 s each
#   benches/perf-compare.sh HEAD --quick         # a few seconds; comparing the code with itself must pass
#   OUT=/tmp/cmp benches/perf-compare.sh v0.1 --duration 5 --scenarios "get list_all"
#   benches/perf-compare.sh 9a87cd1 --duration 3 --save-baseline benches/baseline-9a87cd1.json
#
# With --save-baseline PATH it compares nothing: it measures BASE alone (and the floor) and saves that
# run's results.json to PATH, unless api_load refuses (its rules: one server, a quiet enough machine).
#
# MARGIN=0.2 (the default) is the throughput margin; p99 gets twice it.
# Exit status: 0 no confirmed regression (or the baseline saved), 1 a confirmed regression (or the
# baseline refused), 2 usage or setup error.
set -euo pipefail

BASE=${1:?usage: benches/perf-compare.sh BASE [--save-baseline PATH] [api_load options...]}
shift
SAVE_BASELINE=
OPTIONS=()
while [ $# -gt 0 ]; do
  case $1 in
    --save-baseline) SAVE_BASELINE=${2:?--save-baseline needs a PATH}; shift 2 ;;
    --save-baseline=*) SAVE_BASELINE=${1#*=}; shift ;;
    *) OPTIONS+=("$1"); shift ;;
  esac
done
[ -z "$SAVE_BASELINE" ] || SAVE_BASELINE=$(realpath -m -- "$SAVE_BASELINE")  # before the cd below
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$ROOT/bench-results/perf-compare-$(date -u +%Y%m%dT%H%M%S)}
mkdir -p "$OUT"
BASE_TREE=$(mktemp -d /tmp/perf-base.XXXXXX)
cleanup() { git -C "$ROOT" worktree remove --force "$BASE_TREE" 2>/dev/null || rm -rf "$BASE_TREE"; }
trap cleanup EXIT
git -C "$ROOT" worktree add --quiet --detach "$BASE_TREE" "$BASE" || exit 2
echo "== base $BASE ($(git -C "$BASE_TREE" rev-parse --short HEAD)) in $BASE_TREE$([ -n "$SAVE_BASELINE" ] || echo "; branch: the working tree $ROOT")"

cd "$ROOT"
if [ -n "$SAVE_BASELINE" ]; then
  echo "== baseline: $BASE alone, to $SAVE_BASELINE"
  status=0
  python -m benches.api_load --server-repo "base=$BASE_TREE" --out "$OUT/baseline" "${OPTIONS[@]}" \
    --save-baseline "$SAVE_BASELINE" > "$OUT/baseline.log" 2>&1 || status=$?
  case $status in
    0) grep -E '^   |^baseline saved' "$OUT/baseline.log"; exit 0 ;;
    3) grep -E '^   |^warning' "$OUT/baseline.log"; exit 1 ;;  # api_load's BASELINE_REFUSED
    *) cat "$OUT/baseline.log"; exit 2 ;;
  esac
fi

measure() {  # measure ROUND [extra options...]: both servers, their runs taking turns
  local round=$1
  shift
  echo "== round $round"
  python -m benches.api_load --server-repo "base=$BASE_TREE" --server-repo "branch=$ROOT" --out "$OUT/$round" "$@" \
    > "$OUT/$round.log" 2>&1 || { cat "$OUT/$round.log"; exit 2; }
  grep -E '^   |^warning' "$OUT/$round.log" || true
}

measure 1 "${OPTIONS[@]}"
SUSPECTS=$(python -m benches.api_load.compare ${MARGIN:+--margin "$MARGIN"} "$OUT/1/base/results.json" "$OUT/1/branch/results.json")
if [ -z "$SUSPECTS" ]; then
  echo "no regression (results in $OUT)"
  exit 0
fi
echo "== re-measuring suspects: $SUSPECTS"
measure 2 "${OPTIONS[@]}" --scenarios "$SUSPECTS"
python -m benches.api_load.compare ${MARGIN:+--margin "$MARGIN"} "$OUT/1/base/results.json" "$OUT/1/branch/results.json" \
  "$OUT/2/base/results.json" "$OUT/2/branch/results.json"
