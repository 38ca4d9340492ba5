#!/usr/bin/env bash
# vm-suite.sh - the VM suite (make test-vm): the OSSD channel through a
# real guest kernel's NVMe, virtio-scsi and AHCI (SATA) drivers.  Starts the
# emulated drive, builds the guest (build-guest) and the heap pages
# (make-pages.sh), boots qemu (TCG; KVM when a probe booted) with three disks
# on the drive's NBD export - NVMe with 4096-byte blocks, virtio-scsi
# scsi-hd with 4096, AHCI ide-hd with 512 - and runs the guest phases:
#   conformance  ossd-vm-conformance over nvme:, sg: (SCSI), sg: (SATA)
#   ossdfs       ossdfs over nvme: and the core of the POSIX checks
#   ossdfs-sata  the same over sg: on AHCI (512-byte sectors), partition 2
#   fault-stop   the drive SIGSTOPped with commands outstanding, continued
#   fault-kill   the drive killed with commands outstanding, restarted
# The guest's TAP comes over its second serial port; this script numbers it
# into its own TAP, acts on the guest's "# vm-fault:" requests, and holds
# every phase to a deadline.  VM_PHASES picks phases (default: all).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/harness/tap.sh"
. "$top/tests/vm/vm-lib.bash"

phases=${VM_PHASES:-conformance ossdfs ossdfs-sata fault-stop fault-kill}
declare -A phase_limit=([conformance]=200 [ossdfs]=150 [ossdfs-sata]=150 [fault-stop]=120 [fault-kill]=120)
boot_limit=60
t_start=$(date +%s)

vm_init suite
ok_if "guest built (build/vm: kernel $(cat "$B/vm/kernel-version" 2>/dev/null || echo '?'))" "$top/tests/vm/build-guest"
ok_if "real PostgreSQL heap pages for the SCAN case" "$top/tests/vm/make-pages.sh"
ok_if "drive started ($VM_DRIVE_SIZE, lease $VM_LEASE_MS ms)" vm_drive_start
drive_pid=$(vm_drive_pid)
if [ ! -s "$B/vm/base.cpio" ] || [ -z "$drive_pid" ]; then tap_done; exit 1; fi
accel=$(vm_accel)
echo "# accelerator: $accel ($(sed -n 2p "$B/vm/kvm-probe" 2>/dev/null || echo 'no /dev/kvm')-probe)"

fault_secs=${VM_FAULT_SECS:-6}
cat >"$work/run.conf" <<EOF
PHASES="$phases"
TIMEOUT_MS=8000
NVME_IO_TIMEOUT=10
SCSI_TIMEOUT=10
FAULT_TIMEOUT_MS=3000
FAULT_SECS=$fault_secs
PAGES_EXPECT=$(cat "$B/vm/pages/expect" 2>/dev/null)
PAGES_XMIN=$(cat "$B/vm/pages/xmin" 2>/dev/null)
EOF
vm_boot "$work/run.conf" "$accel"
t_boot=$(date +%s)

# ---- follow the guest's serial TAP ------------------------------------------
seen=0 phase= phase_t0=$t_boot phase_ok=0 phase_fail=0 phase_plan=
done_phases=() cont_at= restart_at= finished=0 deadline=$((t_boot + boot_limit))
fault_log=()
end_phase () { # $1 = exit status the guest reported
  local p=$phase
  [ -n "$p" ] || return 0
  if [ "$1" != 0 ] && [ "$phase_fail" -eq 0 ]; then
    tap_not_ok "[$p] guest phase exited $1 without a failing case"
  fi
  if [ -z "$phase_plan" ] || [ "$phase_plan" -ne $((phase_ok + phase_fail)) ]; then
    tap_not_ok "[$p] plan: ${phase_plan:-none} cases announced, $((phase_ok + phase_fail)) reported"
  fi
  echo "# [$p] $phase_ok passed, $phase_fail failed in $(( $(date +%s) - phase_t0 )) s"
  done_phases+=("$p")
  phase=
}
handle_line () {
  local l=$1
  case $l in
    "ok "*|"not ok "*)
      local verdict=${l%% [0-9]*} rest=${l#*[0-9] - }
      [ "$rest" = "$l" ] && rest=${l#"$verdict" }
      if [ "$verdict" = ok ]; then tap_ok "[$phase] $rest"; phase_ok=$((phase_ok + 1))
      else tap_not_ok "[$phase] $rest"; phase_fail=$((phase_fail + 1)); fi ;;
    1..*) phase_plan=${l#1..} ;;
    "# vm: phase "*" exit "*)
      local st=${l#*exit }; end_phase "${st%% *}" ;;
    "# vm: phase "*)
      phase=${l#"# vm: phase "}; phase_ok=0 phase_fail=0 phase_plan=
      phase_t0=$(date +%s); deadline=$((phase_t0 + ${phase_limit[$phase]:-120})) ;;
    "# vm: done") finished=1; echo "$l" ;;
    "# vm-fault: stop "*)
      kill -STOP "$(vm_drive_pid)" && fault_log+=("stop")
      echo "# host: nbdkit $(vm_drive_pid) stopped (SIGSTOP) for ${l##* } s"
      cont_at=$(( $(date +%s) + ${l##* } )) ;;
    "# vm-fault: kill "*)
      kill -9 "$(vm_drive_pid)" && fault_log+=("kill")
      echo "# host: nbdkit $(vm_drive_pid) killed (SIGKILL); restart in ${l##* } s"
      restart_at=$(( $(date +%s) + ${l##* } )) ;;
    *) echo "$l" ;;
  esac
}
while :; do
  if [ -s "$work/tap.log" ]; then
    # whole lines only: the last may still be arriving
    n=$(wc -l <"$work/tap.log")
    if [ "$n" -gt "$seen" ]; then
      while IFS= read -r line; do handle_line "${line%$'\r'}"; done \
        < <(sed -n "$((seen + 1)),${n}p" "$work/tap.log")
      seen=$n
    fi
  fi
  now=$(date +%s)
  if [ -n "$cont_at" ] && [ "$now" -ge "$cont_at" ]; then
    kill -CONT "$(vm_drive_pid)" && echo "# host: nbdkit continued (SIGCONT)"; cont_at=
  fi
  if [ -n "$restart_at" ] && [ "$now" -ge "$restart_at" ]; then
    vm_drive_restart && echo "# host: drive started again (nbdkit $drive_pid)" \
      || echo "# host: drive restart failed: $(tail -3 "$work/drive-start.log")"
    restart_at=
  fi
  kill -0 "$qemu_pid" 2>/dev/null || break
  if [ "$now" -ge "$deadline" ]; then
    tap_not_ok "[${phase:-boot}] finished within its deadline" \
      "$(( now - ${phase_t0:-$t_boot} )) s; console: $(tail -5 "$work/console.log" | tr '\n' ' ')"
    vm_qemu_stop
    break
  fi
  sleep 0.2
done
# the lines written just before qemu exited
n=$(wc -l <"$work/tap.log")
[ "$n" -le "$seen" ] || while IFS= read -r line; do handle_line "${line%$'\r'}"; done \
  < <(sed -n "$((seen + 1)),${n}p" "$work/tap.log")
[ -z "$phase" ] || end_phase "killed"
vm_qemu_wait 10 || true

[ "$finished" -eq 1 ] && tap_ok "guest ran every phase and powered off (${done_phases[*]})" \
  || tap_not_ok "guest ran every phase and powered off" "done: ${done_phases[*]:-none}; console: $(tail -8 "$work/console.log" | tr '\n' ' ')"
for p in $phases; do
  case " ${done_phases[*]} " in *" $p "*) ;; *) tap_not_ok "[$p] phase ran" ;; esac
done
grep -E 'timeout|reset|abort|error' "$work/console.log" | grep -v 'rtc_cmos' | head -20 | sed 's/^/# console: /'
echo "# suite took $(( $(date +%s) - t_start )) s (guest $(( $(date +%s) - t_boot )) s, accelerator $accel)"
tap_done
