#!/usr/bin/env bash
# 21-ossdfs-crash-paced.sh - 20-ossdfs-crash.sh on a paced drive: the same
# immediate stop and kill -9 of the drive and of ossdfs under PostgreSQL,
# with every drive start (the first and the restart after the kill) under
# the sata-ssd profile ($OSSD_PROFILE, read by ossdctl device start), so
# every request sleeps to its modelled completion.  Pacing must lose and
# reorder nothing: no committed row lost, pg_amcheck and fsck clean.
top=$(cd "$(dirname "$0")/../.." && pwd)
export OSSD_PROFILE=${OSSD_PROFILE:-sata-ssd}
exec "$top/tests/integration/20-ossdfs-crash.sh"
