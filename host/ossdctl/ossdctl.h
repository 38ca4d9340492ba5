/* ossdctl.h - shared declarations of the ossdctl command-line tool. */
#ifndef OSSDCTL_H
#define OSSDCTL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "libossd.h"

struct ctl
{
  const char *device;          /* URI */
  const char *key_file;        /* --key-file; NULL: ossd_default_key_file */
  const char *caps[16];        /* --cap TEXT: capabilities given to us */
  int n_caps;
  bool json;
  bool progress;               /* force a progress bar */
  bool quiet;
  uint32_t timeout_ms;         /* --timeout-ms: longest wait for the drive */
  bool timeout_given;
};

/* Each command: argc/argv after the command word(s); returns exit code. */
int cmd_device (struct ctl *c, int argc, char **argv);
int cmd_format (struct ctl *c, int argc, char **argv);
int cmd_info (struct ctl *c, int argc, char **argv);
int cmd_cold (struct ctl *c, int argc, char **argv);
int cmd_profiles (struct ctl *c, int argc, char **argv);
int cmd_stats (struct ctl *c, int argc, char **argv);
int cmd_profile (struct ctl *c, int argc, char **argv);
int cmd_fsck (struct ctl *c, int argc, char **argv);
int cmd_partition (struct ctl *c, int argc, char **argv);
int cmd_events (struct ctl *c, int argc, char **argv);
int cmd_put (struct ctl *c, int argc, char **argv);
int cmd_get (struct ctl *c, int argc, char **argv);
int cmd_ls (struct ctl *c, int argc, char **argv);
int cmd_rm (struct ctl *c, int argc, char **argv);
int cmd_stat (struct ctl *c, int argc, char **argv);
int cmd_attr (struct ctl *c, int argc, char **argv);
int cmd_priority (struct ctl *c, int argc, char **argv);
int cmd_array (struct ctl *c, int argc, char **argv);

/* output.c */
void json_string (FILE *f, const char *s);
/* a wall-clock time (ns since the epoch) as UTC ISO 8601, ms precision */
void format_utc_ns (uint64_t ns, char *buf, size_t len);
void json_bytes_as_string (FILE *f, const uint8_t *p, size_t n);
struct progress
{
  const char *label;
  uint64_t total, done;
  bool enabled;
  double started;
  double last_draw;
};
void progress_start (struct progress *p, const char *label, uint64_t total,
                     bool force);
void progress_update (struct progress *p, uint64_t done);
void progress_finish (struct progress *p);
double now_seconds (void);
int parse_size (const char *s, uint64_t *out);
int parse_object (const char *s, uint64_t *pid, uint64_t *oid);
int parse_u32 (const char *s, uint32_t *out);

/* common.c */
ossd_t *ctl_connect (struct ctl *c);
/* For commands whose one call may run long (format, fsck): without an
 * explicit --timeout-ms, wait up to ten minutes. */
void ctl_allow_long_call (struct ctl *c);
int ctl_fail (const char *what, const ossd_error *err);
const char *ctl_default_device (void);
const char *ctl_rundir (void);
int ctl_flags (const char *cmd, int argc, char **argv,
               const char *const *flags, bool *seen);

/* device_watchdog.c: the process `device start` leaves behind, running
 * nbdkit and starting it again when it crashes. */
struct watchdog_spec
{
  char *const *first_args;     /* nbdkit's argv for the first start */
  char *const *restart_args;   /* the same without format=true */
  const char *image;           /* for the log */
  const char *socket;          /* unlinked before a restart */
  const char *staged_socket;   /* NULL, or where a restart binds before
                                  the socket gets its group and is renamed
                                  into place */
  const char *state_file;      /* holds the number of restarts */
  int socket_gid;              /* -1, or --group's gid to give the socket */
  bool ram_drive;              /* never restarted: its contents are gone */
};
void watchdog_run (const struct watchdog_spec *w) __attribute__ ((noreturn));
bool watchdog_is_crash_signal (int sig);
int watchdog_read_restarts (const char *state_file);

#endif
