/* errors.c - ossdfs's error policy: libossd failures to errno, and the
 * log lines that name the failed command and object.
 *
 * Drive statuses map through ossd_status_errno (ENOENT, EEXIST, ENOSPC,
 * ENOTEMPTY...).  A transport or channel failure (the drive gone, a dead
 * socket, a timeout) becomes EIO, so a vanished drive never hangs a
 * caller beyond libossd's per-call timeout.  EIO and anything unexpected
 * is logged on stderr (and to syslog when running as a daemon). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "ossdfs.h"

void
fs_log (struct fs *fs, const char *fmt, ...)
{
  char line[1024];
  va_list ap;

  va_start (ap, fmt);
  vsnprintf (line, sizeof line, fmt, ap);
  va_end (ap);
  fprintf (stderr, "ossdfs: %s\n", line);
  if (fs && fs->daemon)
    syslog (LOG_ERR, "%s", line);
}

int
fs_fail (struct fs *fs, int r, const ossd_error *err, const char *cmd,
         uint64_t oid)
{
  int e = r < 0 ? -r : EIO;
  bool log = false;

  if (err && err->status == OSSD_STATUS_TRANSPORT)
    {
      e = EIO;
      log = true;
    }
  switch (e)
    {
    case ENOENT: case EEXIST: case ENOSPC: case ENOTEMPTY: case EFBIG:
    case ENOMEM:
      break;
    default:
      log = true;
      if (e != EINVAL && e != ENOTSUP && e != ESTALE)
        e = EIO;
    }
  if (log)
    fs_log (fs, "%s (pid %llu, oid %llu) failed: %s%s%s", cmd,
            (unsigned long long) fs->pid, (unsigned long long) oid,
            err ? ossd_status_name (err->status) : strerror (e),
            err && err->msg[0] ? ": " : "", err ? err->msg : "");
  return -e;
}
