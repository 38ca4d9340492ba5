# shellcheck shell=bash
# bench/plot-lib.sh - sourced by bench/*/plot (bash).  Usage:
#   plot_init NAME USAGE-TEXT "$@"    # --help, results dir, gnuplot check
#   need_csv FILE...                   # each must exist in $res, non-empty
#   gp [STATEMENTS] <<'GP' ... GP      # run gnuplot on stdin with the
#                                      # variables res and common set,
#                                      # after STATEMENTS (e.g. "n=3")
# The results directory is the one argument (default bench/results of this
# tree).  Without gnuplot: a message on stderr and exit 0, so a benchmark
# run still ends well with its CSVs written; `make deps` installs gnuplot.
plot_init () {
  plot_name=$1
  local usage=$2
  shift 2
  res=
  while [ $# -gt 0 ]; do
    case $1 in
      -h|--help) printf '%s\n' "$usage"; exit 0 ;;
      -*) echo "$plot_name: unknown option $1 (see --help)" >&2; exit 2 ;;
      *) [ -z "$res" ] || { echo "$plot_name: one results directory only (see --help)" >&2; exit 2; }
         res=$1 ;;
    esac
    shift
  done
  plot_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  res=${res:-$plot_top/bench/results}
  [ -d "$res" ] || { echo "$plot_name: no results directory $res" >&2; exit 1; }
  res=$(cd "$res" && pwd)
  common=$plot_top/bench/plot-common.gp
  if ! command -v gnuplot >/dev/null; then
    echo "$plot_name: gnuplot not found: no PNG written; run make deps" >&2
    exit 0
  fi
}
need_csv () {
  local f
  for f; do
    [ -s "$res/$f" ] || { echo "$plot_name: $res/$f missing or empty" >&2; exit 1; }
  done
}
# gnuplot reads the script from a file: read from a pipe, it rejects
# { } blocks that hold continued (\) lines
gp () {
  local script rc=0
  script=$(mktemp /tmp/bench-plot.XXXXXX.gp)
  cat >"$script"
  gnuplot -e "res='$res'; common='$common'; $*" "$script" || rc=$?
  rm -f "$script"
  return $rc
}
wrote () { echo "$plot_name: wrote $*" >&2; }
