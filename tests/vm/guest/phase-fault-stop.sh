#!/bin/sh
# phase-fault-stop.sh - the drive stopped (SIGSTOP by the host) with
# commands outstanding on every transport, then continued.
exec ossd-vm-conformance --key-file "$OSSD_KEY_FILE" --timeout-ms "$FAULT_TIMEOUT_MS" \
  --fault stop --fault-secs "$FAULT_SECS" $DEVS
