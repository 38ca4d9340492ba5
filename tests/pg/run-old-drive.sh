#!/usr/bin/env bash
# run-old-drive.sh - a drive that does not announce a feature the plan's
# kernels need is never sent them.  The drive restarts with
# hide_features=1024: it no longer announces OSSD_FEATURE_TEXT_SUBSTR and,
# as a drive of an older build, refuses SCAN kernels calling helper 23
# (ossd_text_substr_cmp).  An offloaded scan whose filter compares a
# substring() then runs on the host with the same quals (EXPLAIN ANALYZE:
# "Scans on Host for Want of a Drive Feature"), giving the plain scan's
# answer instead of failing on the drive's refusal; a scan without the
# helper still runs on the drive.  Starts its own drive, ossdfs and cluster.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
source "$top/tests/harness/tap.sh"
PG_PORT=5458
source "$top/tests/pg/pg-env.bash"
if ! pgenv_up pg-old-drive 2G; then
  tap_not_ok "drive, ossdfs and cluster up"; tap_done; exit 1
fi
tap_ok "drive, ossdfs and cluster up"
if psql_q -c "CREATE TABLE od (id int4, ph char(15), t text) TABLESPACE ossd" \
     -c "INSERT INTO od SELECT i, format('%s-%s', 10 + i % 25, i), (ARRAY['abc', 'żółw', 'xbc'])[i % 3 + 1]
           FROM generate_series(1, 40000) i" \
     -c "VACUUM (FREEZE, ANALYZE) od" -c "CHECKPOINT" >"$work/load.log" 2>&1; then
  tap_ok "loaded, frozen and checkpointed a table"
else
  tap_not_ok "load" "$(tail -3 "$work/load.log")"
fi

features () { "$ctl" --json info | python3 -c 'import json, sys; print(json.load(sys.stdin)["feature_bits"])'; }
# what the plan's scan of od did: the EXPLAIN ANALYZE lines named
scan_lines () {
  psql_q -c "SET ossd.force_offload = on" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $1" |
    grep -E 'Device Filter|Blocks on Drive|Want of a' | sed 's/^ *//' | tr '\n' ';'
}
qs=("SELECT count(*), sum(id) FROM od WHERE substring(ph FROM 1 FOR 2) IN ('13', '31', '23')"
    "SELECT id FROM od WHERE substr(t, 2, 2) = 'bc' AND id % 5 = 0 ORDER BY id")
same_answers () {
  local q want on
  for q in "${qs[@]}"; do
    want=$(psql_q -c "SET ossd.enabled = off" -c "$q" | md5sum)
    on=$(psql_q -c "SET ossd.force_offload = on" -c "$q" | md5sum)
    [ "$on" = "$want" ] || { echo "$q"; return 1; }
  done
}

f=$(features)
[ $((f & 1024)) -ne 0 ] && tap_ok "the drive announces OSSD_FEATURE_TEXT_SUBSTR (features $f)" \
  || tap_not_ok "the drive announces OSSD_FEATURE_TEXT_SUBSTR" "features $f"
out=$(scan_lines "${qs[0]}")
case $out in
  *"Device Filter: (SUBSTRING(ph FROM 1 FOR 2)"*"Blocks on Drive: "[1-9]*)
    case $out in *"Want of a Drive Feature"*) tap_not_ok "the drive runs the substring filter" "$out" ;;
                 *) tap_ok "the drive runs the substring filter ($out)" ;; esac ;;
  *) tap_not_ok "the drive runs the substring filter" "$out" ;;
esac
bad=$(same_answers) && tap_ok "same answers offloaded and not" || tap_not_ok "same answers offloaded and not" "$bad"

pg_stop && fs_umount && "$ctl" device stop >/dev/null \
  && "$ctl" device start --image "$work/drive.img" --group postgres -- slots=64 hide_features=1024 >>"$work/drive.log" 2>&1 \
  && drive_open_for_postgres && fs_mount && pg_start \
  && tap_ok "drive restarted hiding OSSD_FEATURE_TEXT_SUBSTR" \
  || { tap_not_ok "restart the drive with hide_features=1024" "$(tail -3 "$work/drive.log")"; tap_done; exit 1; }
f=$(features)
[ $((f & 1024)) -eq 0 ] && [ "$f" -ne 0 ] && tap_ok "it announces the other features only ($f)" \
  || tap_not_ok "the drive hides OSSD_FEATURE_TEXT_SUBSTR" "features $f"
for q in "${qs[@]}"; do
  out=$(scan_lines "$q")
  case $out in
    *"Device Filter: "*"Blocks on Drive: 0;"*"Scans on Host for Want of a Drive Feature: 1;"*)
      tap_ok "planned with the substring on the drive, scanned on the host (${q:0:60}...)" ;;
    *) tap_not_ok "scanned on the host for want of the feature (${q:0:60}...)" "$out" ;;
  esac
done
bad=$(same_answers) && tap_ok "same answers offloaded and not" || tap_not_ok "same answers offloaded and not" "$bad"
out=$(scan_lines "SELECT count(*) FROM od WHERE t = 'abc'")
case $out in
  *"Blocks on Drive: "[1-9]*) case $out in *"Want of a Drive Feature"*) tap_not_ok "a kernel without helper 23 runs on the drive" "$out" ;;
                             *) tap_ok "a kernel without helper 23 still runs on the drive ($out)" ;; esac ;;
  *) tap_not_ok "a kernel without helper 23 runs on the drive" "$out" ;;
esac
tap_done
