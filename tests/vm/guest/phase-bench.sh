#!/bin/sh
# phase-bench.sh - bench/vm-transports' guest side: ossd-vm-bench over the
# three kernel drivers' transports.
exec ossd-vm-bench --key-file "$OSSD_KEY_FILE" --rounds "${BENCH_ROUNDS:-300}" \
  --mib "${BENCH_MIB:-32}" --passes "${BENCH_PASSES:-1}" $DEVS
