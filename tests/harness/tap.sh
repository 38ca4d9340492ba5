# tap.sh - tiny TAP helpers for shell integration tests (source it).
#   ok_if "description" command...     run command; ok when it exits 0
#   tap_ok "description" / tap_not_ok "description" "why"
#   tap_done                           print the plan; exit status = failures
_tap_n=0
_tap_fail=0
tap_ok () { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $1"; }
tap_not_ok () {
  _tap_n=$((_tap_n + 1)); _tap_fail=$((_tap_fail + 1))
  echo "not ok $_tap_n - $1"
  [ $# -lt 2 ] || echo "# $2"
}
ok_if () {
  local d=$1; shift
  local out
  if out=$("$@" 2>&1); then tap_ok "$d"; else tap_not_ok "$d" "$(echo "$out" | tail -5 | tr '\n' ' ')"; fi
}
tap_done () { echo "1..$_tap_n"; [ "$_tap_fail" -eq 0 ]; }
