# ossdfs-lib.bash - helpers for the 20-ossdfs-*.sh tests (source it after
# tests/harness/tap.sh).  Not a test itself (it does not end in .sh).
#
#   ofs_init NAME            temp dir $work (readable by postgres), $mnt,
#                            $dev; installs the cleanup trap
#   drive_start [SIZE]       format and start a drive ($work/drive.img)
#   drive_restart            start the drive again on the same image
#   drive_kill               kill -9 the drive (nbdkit): a power cut, which
#                            its watchdog does not restart
#   drive_wait_ready [S]     wait up to S s (15) until the drive answers
#   fs_mount [ARGS]          start ossdfs in the foreground (pid $fs_pid,
#                            log $work/ossdfs.log) and wait for the mount
#                            (on the drives of $ofs_devargs: --device $dev,
#                            or an array's after array_start)
# Arrays of N drives (docs/arrays.md), each its own nbdkit under
# $work/run$i with image $work/drive$i.img:
#   array_start N [SIZE [ARGS...]]
#                            start N drives (ARGS: more ossdctl device
#                            start options); ${array_dev[i]} their URIs,
#                            $ofs_devargs the --device list fs_mount uses
#   array_create [ARGS]      ossdctl array create over them
#   array_ctl ARGS...        ossdctl ARGS with the --device list appended
#                            (array info, array fsck)
#   array_drive_kill I       kill -9 drive I (not restarted by its watchdog)
#   array_drive_restart I [ARGS...]
#                            start drive I again on its image
#   array_drive_wait_ready I [S]
#   fs_umount                clean unmount (fusermount3 -u), wait for exit
#   fs_kill                  kill -9 ossdfs and detach the dead mount
#   pg_* helpers             a private PostgreSQL 15 cluster (postgres user);
#                            pg_start takes $pg_shared_buffers (128MB) and
#                            $pg_max_wal_size (1GB)
#   ofs_cleanup              everything above, stopped (the EXIT trap)
B=$top/build
ctl=$B/ossdctl
ossdfs=$B/ossdfs
source "$top/tests/harness/pg-bin.bash"
fs_pid=
pg_started=

ofs_init () {
  work=$(mktemp -d "/tmp/ossd-it-$1.XXXXXX")
  chmod 755 "$work"
  export OSSD_RUNDIR=$work/run
  sock=$OSSD_RUNDIR/ossd.sock
  dev="nbd+unix:///?socket=$sock"
  export OSSD_DEVICE=$dev
  mnt=$work/mnt
  pgdata=$work/pgdata
  mkdir -p "$mnt"
  ofs_devargs=(--device "$dev")
  array_dev=()
  trap ofs_cleanup EXIT
}

# ---- arrays ------------------------------------------------------------------
array_start () {
  local n=$1 size=${2:-2G} i
  shift 2 2>/dev/null || shift $#
  array_dev=()
  ofs_devargs=()
  for ((i = 0; i < n; i++)); do
    "$ctl" device start --rundir "$work/run$i" --image "$work/drive$i.img" \
      --size "$size" --volume 64M "$@" >/dev/null || return 1
    array_dev[i]="nbd+unix:///?socket=$work/run$i/ossd.sock"
    ofs_devargs+=(--device "${array_dev[i]}")
  done
}
array_create () { "$ctl" array create "${ofs_devargs[@]}" "$@"; }
array_ctl () { "$ctl" "$@" "${ofs_devargs[@]}"; }
array_drive_kill () {
  local pidf=$work/run$1/ossd.pid
  [ -f "$pidf" ] || return 0
  kill -9 "$(cat "$pidf")" 2>/dev/null
  sleep 0.3
  rm -f "$pidf"
}
array_drive_restart () {
  local i=$1; shift
  "$ctl" device start --rundir "$work/run$i" --image "$work/drive$i.img" "$@" >/dev/null
}
array_drive_wait_ready () {
  local i
  for i in $(seq $(( ${2:-15} * 5 ))); do
    "$ctl" --device "${array_dev[$1]}" --key-file "$work/run$1/ossd.key" \
      --timeout-ms 1000 info >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  return 1
}

drive_start () {
  "$ctl" device start --image "$work/drive.img" --size "${1:-4G}" --volume 64M
}
drive_restart () { "$ctl" device start --image "$work/drive.img"; }
drive_kill () {
  [ -f "$OSSD_RUNDIR/ossd.pid" ] || return 0
  kill -9 "$(cat "$OSSD_RUNDIR/ossd.pid")" 2>/dev/null
  sleep 0.3
  rm -f "$OSSD_RUNDIR/ossd.pid"
}

drive_wait_ready () {
  local i
  for i in $(seq $(( ${1:-15} * 5 ))); do
    "$ctl" --timeout-ms 1000 info >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  return 1
}

fs_mount () {
  "$ossdfs" "$mnt" "${ofs_devargs[@]}" --foreground "$@" >>"$work/ossdfs.log" 2>&1 &
  fs_pid=$!
  for _ in $(seq 100); do
    mountpoint -q "$mnt" && return 0
    kill -0 "$fs_pid" 2>/dev/null || { fs_pid=; tail -5 "$work/ossdfs.log" >&2; return 1; }
    sleep 0.1
  done
  echo "ossdfs did not mount in 10 s" >&2
  return 1
}

fs_umount () {
  local i
  fusermount3 -u "$mnt" || return 1
  for i in $(seq 300); do
    [ -z "$fs_pid" ] && return 0
    kill -0 "$fs_pid" 2>/dev/null || { wait "$fs_pid" 2>/dev/null; fs_pid=; return 0; }
    sleep 0.1
  done
  echo "ossdfs still running 30 s after unmount" >&2
  return 1
}

fs_kill () {
  [ -n "$fs_pid" ] && kill -9 "$fs_pid" 2>/dev/null
  wait "$fs_pid" 2>/dev/null
  fs_pid=
  fusermount3 -u -z "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null
  return 0
}

# ---- PostgreSQL (as the postgres user, never root) -------------------------
pg_port=5439
# From $work (mode 0755): the checkout may be unreadable to postgres (a 0700
# home or mktemp dir), and psql and pg_ctl need a current directory.
pg_as () { (cd "$work" && runuser -u postgres -- "$@"); }
pg_init () {

  mkdir -p "$work/pgsock" "$pgdata"
  chown postgres: "$work/pgsock" "$pgdata"
  chmod 700 "$pgdata"
  pg_as "$pgbin/initdb" -D "$pgdata" -A trust -U postgres --no-sync >"$work/initdb.log" 2>&1
}
pg_start () {
  pg_as "$pgbin/pg_ctl" -D "$pgdata" -l "$work/pgsock/pg.log" -w -t 120 \
    -o "-c listen_addresses='' -c unix_socket_directories=$work/pgsock -p $pg_port -c fsync=on -c shared_buffers=${pg_shared_buffers:-128MB} -c max_wal_size=${pg_max_wal_size:-1GB} -c checkpoint_timeout=30min" \
    start >/dev/null && pg_started=1
}
pg_stop () {
  pg_as "$pgbin/pg_ctl" -D "$pgdata" -w -t 120 -m "${1:-fast}" stop >/dev/null && pg_started=
}
psql_q () {
  pg_as "$pgbin/psql" -X -q -At -v ON_ERROR_STOP=1 -h "$work/pgsock" -p "$pg_port" -U postgres -d postgres "$@"
}

ofs_cleanup () {
  if [ -n "$pg_started" ]; then
    pg_as "$pgbin/pg_ctl" -D "$pgdata" -w -t 60 -m immediate stop >/dev/null 2>&1
  fi
  if mountpoint -q "$mnt" 2>/dev/null; then
    fusermount3 -u "$mnt" 2>/dev/null || fusermount3 -u -z "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null
  fi
  if [ -n "$fs_pid" ]; then
    for _ in $(seq 50); do kill -0 "$fs_pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$fs_pid" 2>/dev/null
  fi
  "$ctl" device stop >/dev/null 2>&1
  drive_kill
  local i
  for i in "${!array_dev[@]}"; do
    "$ctl" device stop --rundir "$work/run$i" >/dev/null 2>&1
    array_drive_kill "$i"
  done
  [ -n "${KEEP_WORK:-}" ] && { echo "# kept $work"; return; }
  rm -rf "$work"
}
