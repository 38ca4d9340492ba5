# vm-lib.bash - the host side of the VM suite (source it; not a test).
# The emulated drive under nbdkit, the guest booted by qemu with three disks
# backed by the drive's NBD export, the serial port the guest's TAP comes
# over, every wait with a deadline, and the cleanup that always stops qemu
# and nbdkit.
#
#   vm_init NAME             $work (mktemp), $drive_sock, cleanup trap
#   vm_drive_start           ossdctl device start on $work/drive.img
#                            (VM_DRIVE_SIZE, VM_LEASE_MS); $drive_pid
#   vm_drive_pid             nbdkit's pid now (from the pidfile)
#   vm_drive_wait_ready S    until the drive answers over NBD (S seconds)
#   vm_accel                 "kvm" when a probe booted the guest with KVM
#                            (cached in build/vm/kvm-probe), else "tcg"
#   vm_boot CONF_FILE        pack the per-run cpio (CONF_FILE as
#                            /vm/run.conf, the drive's key, the heap pages)
#                            and start qemu in the background: $qemu_pid,
#                            console $work/console.log, TAP port
#                            $work/tap.log
#   vm_qemu_args             the qemu command line (for the bench)
#   vm_cleanup               qemu and nbdkit stopped, $work removed (the
#                            EXIT trap; KEEP_WORK=1 keeps $work)
top=${top:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
B=$top/build
ctl=$B/ossdctl
VM_DRIVE_SIZE=${VM_DRIVE_SIZE:-1G}
VM_LEASE_MS=${VM_LEASE_MS:-3000}
VM_MEM=${VM_MEM:-1024}
qemu_pid=
drive_pid=

vm_init () {
  work=$(mktemp -d "/tmp/ossd-vm-$1.XXXXXX")
  chmod 755 "$work"
  drive_rundir=$work/run
  drive_sock=$drive_rundir/ossd.sock
  trap vm_cleanup EXIT
  trap 'exit 130' INT TERM
}

vm_drive_pid () { cat "$drive_rundir/ossd.pid" 2>/dev/null; }

vm_drive_start () {
  "$ctl" device start --rundir "$drive_rundir" --image "$work/drive.img" \
    --size "$VM_DRIVE_SIZE" --volume 16M -- lease_ms="$VM_LEASE_MS" >>"$work/drive-start.log" 2>&1 \
    || { tail -5 "$work/drive-start.log" >&2; return 1; }
  drive_pid=$(vm_drive_pid)
  [ -n "$drive_pid" ]
}

# Start the drive again on its image (after a kill).
vm_drive_restart () {
  rm -f "$drive_rundir/ossd.pid"
  "$ctl" device start --rundir "$drive_rundir" --image "$work/drive.img" \
    -- lease_ms="$VM_LEASE_MS" >>"$work/drive-start.log" 2>&1
  drive_pid=$(vm_drive_pid)
}

vm_drive_wait_ready () {
  local i
  for i in $(seq $(( ${1:-15} * 5 ))); do
    "$ctl" --device "nbd+unix:///?socket=$drive_sock" --key-file "$drive_rundir/ossd.key" \
      --timeout-ms 1000 info >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  return 1
}

vm_qemu_args () { # $1 = accel, $2 = initrd
  local nbd='"driver":"nbd","server":{"type":"unix","path":"'$drive_sock'"},"export":"","reconnect-delay":'${VM_RECONNECT_S:-5}
  local cpu=qemu64
  [ "$1" = kvm ] && cpu=qemu64
  printf '%s\n' qemu-system-x86_64 -machine q35 -accel "$1" -cpu "$cpu" -m "$VM_MEM" -smp 1 \
    -nodefaults -no-reboot -display none -vga none -monitor none \
    -kernel "$B/vm/vmlinuz" -initrd "$2" \
    -append "console=ttyS0 panic=-1 loglevel=5 edd=off ${VM_APPEND:-}" \
    -serial "file:$work/console.log" -serial "file:$work/tap.log" \
    -blockdev "{$nbd,\"node-name\":\"nvme0\"}" \
    -blockdev "{$nbd,\"node-name\":\"scsi0\"}" \
    -blockdev "{$nbd,\"node-name\":\"sata0\"}" \
    -device nvme,serial=ossdvm,drive=nvme0,logical_block_size=4096,physical_block_size=4096 \
    -device virtio-scsi-pci,id=vscsi \
    -device scsi-hd,bus=vscsi.0,drive=scsi0,logical_block_size=4096,physical_block_size=4096,rerror=report,werror=report \
    -device ide-hd,bus=ide.0,drive=sata0,rerror=report,werror=report
}

# The per-run cpio on top of the base one.
vm_pack_initrd () { # $1 = conf file -> $work/initrd
  local r=$work/runroot
  rm -rf "$r"
  mkdir -p "$r/vm"
  cp "$1" "$r/vm/run.conf"
  cp -L "$drive_rundir/ossd.key" "$r/vm/ossd.key"
  [ -s "$B/vm/pages/pages.bin" ] && cp "$B/vm/pages/pages.bin" "$r/vm/pages.bin"
  (cd "$r" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) >"$work/run.cpio"
  cat "$B/vm/base.cpio" "$work/run.cpio" >"$work/initrd"
}

vm_boot () { # $1 = conf file, $2 = accel
  vm_pack_initrd "$1"
  : >"$work/console.log"
  : >"$work/tap.log"
  local args
  mapfile -t args < <(vm_qemu_args "${2:-tcg}" "$work/initrd")
  "${args[@]}" >"$work/qemu.log" 2>&1 &
  qemu_pid=$!
}

vm_qemu_stop () {
  [ -n "$qemu_pid" ] || return 0
  kill "$qemu_pid" 2>/dev/null || true
  for _ in $(seq 30); do kill -0 "$qemu_pid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$qemu_pid" 2>/dev/null || true
  wait "$qemu_pid" 2>/dev/null || true
  qemu_pid=
}

# Wait until qemu exits, at most $1 seconds; 1 when it had to be killed.
vm_qemu_wait () {
  local end=$(( $(date +%s) + $1 ))
  while kill -0 "$qemu_pid" 2>/dev/null; do
    [ "$(date +%s)" -lt "$end" ] || { vm_qemu_stop; return 1; }
    sleep 0.2
  done
  wait "$qemu_pid" 2>/dev/null || true
  qemu_pid=
  return 0
}

# KVM: opened here before, yet the guest hung after "Probing EDD"; so a
# short boot must reach the guest's init before KVM is used.
vm_accel () {
  local cache=$B/vm/kvm-probe key
  key="$(cat "$B/vm/kernel-version") $(qemu-system-x86_64 --version | head -1)"
  if [ "${VM_ACCEL:-}" = tcg ] || [ "${VM_ACCEL:-}" = kvm ]; then echo "$VM_ACCEL"; return; fi
  if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
    if [ "$(head -1 "$cache" 2>/dev/null)" != "$key" ]; then
      local conf=$work/probe.conf
      printf 'PHASES=""\nNVME_IO_TIMEOUT=30\nSCSI_TIMEOUT=30\n' >"$conf"
      vm_boot "$conf" kvm
      local verdict=broken
      for _ in $(seq 100); do
        grep -q '^# vm: done' "$work/tap.log" 2>/dev/null && { verdict=works; break; }
        kill -0 "$qemu_pid" 2>/dev/null || break
        sleep 0.2
      done
      vm_qemu_stop
      printf '%s\n%s\n' "$key" "$verdict" >"$cache"
      { cat "$work/qemu.log"; tail -20 "$work/console.log"; } >"$cache.log" 2>/dev/null
    fi
    [ "$(sed -n 2p "$cache")" = works ] && { echo kvm; return; }
  fi
  echo tcg
}

vm_cleanup () {
  set +e                      # a caller's errexit: every step runs
  vm_qemu_stop
  local p
  p=$(vm_drive_pid)
  [ -n "$p" ] && kill -CONT "$p" 2>/dev/null
  [ -n "$drive_pid" ] && kill -CONT "$drive_pid" 2>/dev/null
  if [ -n "${drive_rundir:-}" ]; then
    # the watchdog first (it would start nbdkit again), then nbdkit: by
    # the pids in the run directory and the ones this shell saw
    local w
    w=$(cat "$drive_rundir/watchdog.pid" 2>/dev/null)
    "$ctl" device stop --rundir "$drive_rundir" --force >/dev/null 2>&1
    for p in $w $(vm_drive_pid) $drive_pid; do kill -9 "$p" 2>/dev/null; done
  fi
  [ -n "${KEEP_WORK:-}" ] && { echo "# kept $work"; return 0; }
  [ -n "${work:-}" ] && rm -rf "$work"
  return 0
}
