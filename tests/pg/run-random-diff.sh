#!/usr/bin/env bash
# run-random-diff.sh - TAP: the random differential query test of pg_ossd.
#
# Starts its own drive, ossdfs mount and private cluster (pg-env.bash),
# loads the tables of build/tests/ossd-randq for each seed (frozen and
# checkpointed, so that the drive scans every block), and runs its queries
# with offload off and forced to the drive (JIT, interpreter, each without
# and with parallel workers), comparing every answer with offload off's.
#   tests/pg/run-random-diff.sh [--seed S]... [--queries N]
# Defaults: seed 1, 150 queries (make test); a long run is
# e.g. `--queries 20000 --seed 7`.  Differences are printed (seed, query,
# both answers) and written, shrunk, as reproducers under
# build/test-logs/random-diff/.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
source "$top/tests/harness/tap.sh"
source "$top/tests/pg/pg-env.bash"
randq=$top/build/tests/ossd-randq
seeds=()
queries=${RANDQ_QUERIES:-150}
while [ $# -gt 0 ]; do
  case $1 in
    --seed) seeds+=("$2"); shift 2 ;;
    --queries) queries=$2; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run-random-diff.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ ${#seeds[@]} -gt 0 ] || seeds=(${RANDQ_SEEDS:-1})
out=$top/build/test-logs/random-diff
mkdir -p "$out"

if [ ! -x "$randq" ]; then
  tap_not_ok "ossd-randq built" "$randq missing: make -f mk/build.mk test-programs"; tap_done; exit 1
fi
if ! pgenv_up random-diff; then
  tap_not_ok "drive, ossdfs and cluster up"; tap_done; exit 1
fi
tap_ok "drive, ossdfs and cluster up"
psql_q -c "CREATE DATABASE randq" >/dev/null
psql_q -d randq -c "CREATE EXTENSION pg_ossd" >/dev/null
conn="host=$work/pgsock port=$pg_port user=postgres dbname=randq"

total_q=0 total_off=0 total_cmp=0 total_diff=0
for seed in "${seeds[@]}"; do
  if "$randq" --seed "$seed" --schema --data | psql_q -d randq >"$work/load-$seed.log" 2>&1; then
    tap_ok "seed $seed: tables loaded on the drive"
  else
    tap_not_ok "seed $seed: tables loaded on the drive" "$(tail -3 "$work/load-$seed.log")"
    continue
  fi
  # the drive really scans these tables' blocks
  ex=$(psql_q -d randq -c "SET ossd.force_offload = on" \
        -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT count(*) FROM rq_wide WHERE i4 > 0")
  d=$(echo "$ex" | sed -n 's/.*Blocks on Drive: \([0-9]*\).*/\1/p')
  if [ "${d:-0}" -gt 0 ]; then
    tap_ok "seed $seed: the drive scans rq_wide ($d blocks)"
  else
    tap_not_ok "seed $seed: the drive scans rq_wide" "$(echo "$ex" | tr '\n' ' ')"
  fi
  log=$out/seed-$seed.log
  "$randq" --seed "$seed" --queries "$queries" --run "$conn" --out "$out" --json \
    --progress 500 >"$log" 2>&1
  rc=$?
  grep '^# \(DIFF\|query\|  \|shrunk\|repro\)' "$log" | head -80
  sum=$(grep '^# seed' "$log" | tail -1)
  json=$(grep '^{' "$log" | tail -1)
  echo "${sum:-# seed $seed: no summary (see $log)}"
  num () { echo "$json" | sed -n "s/.*\"$1\": \([0-9]*\).*/\1/p"; }
  nq=$(num queries) noff=$(num offloaded) ncmp=$(num compared) ndiff=$(num differences)
  nscan=$(num drive_scans)
  if [ -z "$json" ] || [ "$rc" -eq 2 ]; then
    tap_not_ok "seed $seed: queries ran" "$(tail -3 "$log")"
    continue
  fi
  total_q=$((total_q + nq)) total_off=$((total_off + noff))
  total_cmp=$((total_cmp + ncmp)) total_diff=$((total_diff + ndiff))
  if [ "$noff" -gt 0 ] && [ "${nscan:-0}" -gt 0 ]; then
    tap_ok "seed $seed: $noff of $nq queries offloaded (OssdScan), $nscan scans on the drive"
  else
    tap_not_ok "seed $seed: queries offloaded" "$noff of $nq show an OssdScan, ${nscan:-no} scans on the drive"
  fi
  if [ "$rc" -eq 0 ] && [ "$ndiff" -eq 0 ]; then
    tap_ok "seed $seed: $ncmp result sets compared, 0 differences"
  else
    tap_not_ok "seed $seed: $ncmp result sets compared, $ndiff differences" "log: $log"
  fi
done
echo "# summary: ${#seeds[@]} seeds, $total_q queries, $total_off offloaded, $total_cmp result sets compared, $total_diff differences"
tap_done
