/* device_watchdog.c - the emulated drive's watchdog: the process that
 * `ossdctl device start` leaves behind.  It runs nbdkit in the foreground
 * and, when nbdkit dies of a crash (SIGABRT, SIGSEGV, SIGBUS, ...), starts
 * it again on the same image and socket, the way a drive's firmware
 * watchdog resets a controller that hung: clients see their connection
 * drop and connect again, and the FTL mounts what it had made durable.
 *
 * Why it exists: nbdkit up to 1.33.9 aborts (assertion "sock >= 0" in
 * raw_send_socket, fixed by its commit 9d82aa4f) when a client hangs up
 * while two of its replies are queued on parallel threads, which a client
 * that times out on a stalled drive cannot avoid.  One client must not be
 * able to take the drive away from every other.
 *
 * What it does not restart: a clean exit, SIGTERM/SIGINT (`device stop`),
 * SIGKILL (the harnesses' power cut: the drive stays down until started
 * again), a RAM drive (its contents died with the process), and a drive
 * that crashes WATCHDOG_MAX_RESTARTS times within WATCHDOG_WINDOW_S.
 * Every decision is logged, with a time, in the drive's log. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ossdctl.h"

#define WATCHDOG_MAX_RESTARTS 5
#define WATCHDOG_WINDOW_S 60
#define WATCHDOG_SOCKET_WAIT_MS 15000

static volatile sig_atomic_t stop_signal;

static void
watchdog_on_stop (int sig)
{
  stop_signal = sig;
}

static void
watchdog_log (const char *fmt, ...)
{
  char when[32];
  time_t t = time (NULL);
  struct tm tm;
  va_list ap;

  strftime (when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r (&t, &tm));
  fprintf (stderr, "%s ossdctl watchdog[%d]: ", when, (int) getpid ());
  va_start (ap, fmt);
  vfprintf (stderr, fmt, ap);
  va_end (ap);
  fputc ('\n', stderr);
  fflush (stderr);
}

bool
watchdog_is_crash_signal (int sig)
{
  switch (sig)
    {
    case SIGABRT: case SIGSEGV: case SIGBUS: case SIGILL: case SIGFPE:
    case SIGSYS: case SIGTRAP:
      return true;
    default:
      return false;
    }
}

int
watchdog_read_restarts (const char *state_file)
{
  FILE *f = fopen (state_file, "r");
  int n = 0;

  if (!f)
    return 0;
  if (fscanf (f, "%d", &n) != 1)
    n = 0;
  fclose (f);
  return n;
}

static void
watchdog_write_restarts (const char *state_file, int n)
{
  FILE *f = fopen (state_file, "w");

  if (!f)
    {
      watchdog_log ("cannot write %s: %s", state_file, strerror (errno));
      return;
    }
  fprintf (f, "%d\n", n);
  fclose (f);
}

/* After a restart: the socket nbdkit bound at the staged path gets the
 * group `device start --group` gave it, then takes the socket's name
 * (rename is atomic: a client finds no socket, or one it may open). */
static void
watchdog_regroup_socket (const struct watchdog_spec *w)
{
  if (w->socket_gid < 0 || !w->staged_socket)
    return;
  for (int waited = 0; waited < WATCHDOG_SOCKET_WAIT_MS; waited += 20)
    {
      if (access (w->staged_socket, F_OK) == 0)
        {
          if (chown (w->staged_socket, 0, (gid_t) w->socket_gid) < 0
              || chmod (w->staged_socket, 0660) < 0
              || rename (w->staged_socket, w->socket) < 0)
            watchdog_log ("cannot give %s to gid %d and move it to %s: %s",
                          w->staged_socket, w->socket_gid, w->socket, strerror (errno));
          return;
        }
      usleep (20000);
    }
  watchdog_log ("the restarted drive made no socket %s within %d ms",
                w->staged_socket, WATCHDOG_SOCKET_WAIT_MS);
}

static pid_t
watchdog_spawn (char *const *args)
{
  pid_t pid = fork ();

  if (pid == 0)
    {
      signal (SIGTERM, SIG_DFL);
      signal (SIGINT, SIG_DFL);
      signal (SIGHUP, SIG_DFL);
      execvp (args[0], args);
      fprintf (stderr, "ossdctl watchdog: exec %s: %s\n", args[0], strerror (errno));
      _exit (127);
    }
  return pid;
}

void
watchdog_run (const struct watchdog_spec *w)
{
  struct sigaction sa;
  time_t window_start = 0;
  int in_window = 0, restarts = 0;
  char *const *args = w->first_args;

  memset (&sa, 0, sizeof sa);
  sa.sa_handler = watchdog_on_stop;
  sigemptyset (&sa.sa_mask);
  sigaction (SIGTERM, &sa, NULL);
  sigaction (SIGINT, &sa, NULL);
  sigaction (SIGHUP, &sa, NULL);
  watchdog_write_restarts (w->state_file, 0);

  for (;;)
    {
      int status = 0, forwarded = 0;
      pid_t pid = watchdog_spawn (args);

      if (pid < 0)
        {
          watchdog_log ("fork: %s; the drive is down", strerror (errno));
          _exit (1);
        }
      if (args != w->first_args)
        watchdog_regroup_socket (w);
      /* From now on a restart must not format the image again. */
      args = w->restart_args;
      while (waitpid (pid, &status, 0) < 0)
        {
          if (errno != EINTR)
            {
              watchdog_log ("waitpid %d: %s", (int) pid, strerror (errno));
              _exit (1);
            }
          if (stop_signal && !forwarded)
            {
              kill (pid, SIGTERM);
              forwarded = 1;
            }
        }
      if (WIFEXITED (status))
        _exit (WEXITSTATUS (status));
      int sig = WIFSIGNALED (status) ? WTERMSIG (status) : 0;
      if (stop_signal || !watchdog_is_crash_signal (sig))
        {
          watchdog_log ("the drive (nbdkit pid %d) ended by signal %d (%s); not restarting it",
                        (int) pid, sig, strsignal (sig));
          _exit (0);
        }
      if (w->ram_drive)
        {
          watchdog_log ("the drive (nbdkit pid %d) crashed (signal %d, %s); it was a RAM "
                        "drive, its contents are gone: not restarting it",
                        (int) pid, sig, strsignal (sig));
          _exit (1);
        }
      time_t now = time (NULL);
      if (now - window_start > WATCHDOG_WINDOW_S)
        {
          window_start = now;
          in_window = 0;
        }
      if (++in_window > WATCHDOG_MAX_RESTARTS)
        {
          watchdog_log ("the drive (nbdkit pid %d) crashed (signal %d, %s) %d times within "
                        "%d s; giving up: start it again with `ossdctl device start`",
                        (int) pid, sig, strsignal (sig), in_window, WATCHDOG_WINDOW_S);
          _exit (1);
        }
      restarts++;
      watchdog_write_restarts (w->state_file, restarts);
      watchdog_log ("the drive (nbdkit pid %d) crashed (signal %d, %s); starting it again "
                    "on %s, socket %s (restart %d)", (int) pid, sig, strsignal (sig),
                    w->image, w->socket, restarts);
      /* an aborted nbdkit leaves its socket file behind: bind would fail */
      unlink (w->socket);
      if (w->staged_socket)
        unlink (w->staged_socket);
    }
}
