#!/bin/sh
# phase-fault-kill.sh - the drive killed (SIGKILL by the host) with
# commands outstanding on every transport, then started again.
exec ossd-vm-conformance --key-file "$OSSD_KEY_FILE" --timeout-ms "$FAULT_TIMEOUT_MS" \
  --fault kill --fault-secs "$FAULT_SECS" $DEVS
