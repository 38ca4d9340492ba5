/* cmd_device.c - `ossdctl device start|stop|status`: run the emulated
 * drive as an nbdkit process on a Unix socket, with a pidfile and a log
 * in the run directory, under a watchdog (device_watchdog.c) that starts
 * it again if it crashes. */
#include <errno.h>
#include <grp.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ossdctl.h"

struct device_paths
{
  char rundir[PATH_MAX], sock[PATH_MAX], pidfile[PATH_MAX], log[PATH_MAX];
  char watchdog_pidfile[PATH_MAX], restarts[PATH_MAX];
};

static void
paths_init (struct device_paths *p, const char *rundir, const char *sock)
{
  snprintf (p->rundir, sizeof p->rundir, "%s", rundir ? rundir : ctl_rundir ());
  if (sock)
    snprintf (p->sock, sizeof p->sock, "%s", sock);
  else
    snprintf (p->sock, sizeof p->sock, "%s/ossd.sock", p->rundir);
  snprintf (p->pidfile, sizeof p->pidfile, "%s/ossd.pid", p->rundir);
  snprintf (p->log, sizeof p->log, "%s/nbdkit.log", p->rundir);
  snprintf (p->watchdog_pidfile, sizeof p->watchdog_pidfile, "%s/watchdog.pid", p->rundir);
  snprintf (p->restarts, sizeof p->restarts, "%s/watchdog.restarts", p->rundir);
}

/* --rundir DIR among argv, else the default run directory. */
static void
paths_from_args (struct device_paths *p, int argc, char **argv)
{
  const char *rundir = NULL;

  for (int i = 0; i < argc; i++)
    if (strcmp (argv[i], "--rundir") == 0 && i + 1 < argc)
      rundir = argv[++i];
  paths_init (p, rundir, NULL);
}

/* A process that exited but is not yet reaped (the watchdog is an
 * orphan: init reaps it when it gets to it) still answers kill(pid, 0). */
static bool
is_zombie (pid_t pid)
{
  char path[64], buf[512];
  FILE *f;
  size_t n;
  const char *paren;

  snprintf (path, sizeof path, "/proc/%d/stat", (int) pid);
  if (!(f = fopen (path, "r")))
    return false;
  n = fread (buf, 1, sizeof buf - 1, f);
  fclose (f);
  buf[n] = '\0';
  /* "pid (comm) S ...": the state follows the last ')' */
  paren = strrchr (buf, ')');
  return paren && paren[1] == ' ' && paren[2] == 'Z';
}

static pid_t
read_pidfile (const char *path)
{
  FILE *f = fopen (path, "r");
  long pid = 0;

  if (!f)
    return 0;
  if (fscanf (f, "%ld", &pid) != 1)
    pid = 0;
  fclose (f);
  if (pid > 0 && kill ((pid_t) pid, 0) == 0 && !is_zombie ((pid_t) pid))
    return (pid_t) pid;
  return 0;
}

/* nbdkit's pid, 0 when it is not running. */
static pid_t
read_pid (const struct device_paths *p)
{
  return read_pidfile (p->pidfile);
}

static void
plugin_path (char *out, size_t len)
{
  const char *env = getenv ("OSSD_NBDKIT_PLUGIN");
  char self[PATH_MAX];
  ssize_t n;

  if (env && *env)
    {
      snprintf (out, len, "%s", env);
      return;
    }
  n = readlink ("/proc/self/exe", self, sizeof self - 1);
  if (n > 0)
    {
      self[n] = '\0';
      char *slash = strrchr (self, '/');
      if (slash)
        *slash = '\0';
      snprintf (out, len, "%s/nbdkit-ossd-plugin.so", self);
    }
  else
    snprintf (out, len, "nbdkit-ossd-plugin.so");
}

static void
print_log_tail (const char *log)
{
  char cmd[PATH_MAX + 32];
  snprintf (cmd, sizeof cmd, "tail -n 15 '%s' >&2", log);
  if (system (cmd) != 0)
    fprintf (stderr, "(no log at %s)\n", log);
}

static int
device_start (struct ctl *c, int argc, char **argv)
{
  static const struct option longopts[] = {
    { "image", required_argument, NULL, 'i' },
    { "size", required_argument, NULL, 's' },
    { "volume", required_argument, NULL, 'v' },
    { "profile", required_argument, NULL, 'P' },
    { "socket", required_argument, NULL, 'S' },
    { "rundir", required_argument, NULL, 'r' },
    { "format", no_argument, NULL, 'f' },
    { "json", no_argument, NULL, 'j' },
    { "key-file", required_argument, NULL, 'k' },
    { "group", required_argument, NULL, 'g' },
    { NULL, 0, NULL, 0 },
  };
  const char *image = NULL, *size = NULL, *volume = NULL, *profile = NULL;
  const char *sock = NULL, *rundir = NULL, *key_file = NULL, *group = NULL;
  char key[PATH_MAX], keylink[PATH_MAX + 16];
  struct group *gr = NULL;
  bool format = false;
  struct device_paths p;
  char plugin[PATH_MAX], *args[64];
  int opt, na = 0;
  pid_t pid;

  optind = 1;
  while ((opt = getopt_long (argc + 1, argv - 1, "i:s:v:P:S:r:fjk:g:", longopts, NULL)) != -1)
    switch (opt)
      {
      case 'i': image = optarg; break;
      case 's': size = optarg; break;
      case 'v': volume = optarg; break;
      case 'P': profile = optarg; break;
      case 'S': sock = optarg; break;
      case 'r': rundir = optarg; break;
      case 'f': format = true; break;
      case 'k': key_file = optarg; break;
      case 'g': group = optarg; break;
      case 'j': break;
      default: return 2;
      }
  if (!image)
    {
      fprintf (stderr, "ossdctl device start: --image FILE is required (ram: for a RAM drive)\n");
      return 2;
    }
  /* the drive profile: --profile, else $OSSD_PROFILE (so a harness can run
   * its suites on a paced drive unchanged), else the image's own */
  if (!profile && getenv ("OSSD_PROFILE") && *getenv ("OSSD_PROFILE"))
    profile = getenv ("OSSD_PROFILE");
  if (group && !(gr = getgrnam (group)))
    {
      fprintf (stderr, "ossdctl device start: --group %s: no such group\n", group);
      return 2;
    }
  paths_init (&p, rundir, sock);
  /* The master key: beside the image (a RAM drive's in the run
   * directory), absolute because nbdkit runs from /. */
  if (key_file && key_file[0] == '/')
    snprintf (key, sizeof key, "%s", key_file);
  else if (key_file || strcmp (image, "ram:") != 0)
    {
      char cwd[PATH_MAX / 2];
      const char *rel = key_file ? key_file : image;
      if (rel[0] == '/')
        snprintf (key, sizeof key, "%s.key", rel);
      else if (!getcwd (cwd, sizeof cwd))
        {
          perror ("ossdctl: getcwd");
          return 1;
        }
      else
        snprintf (key, sizeof key, key_file ? "%s/%s" : "%s/%s.key", cwd, rel);
    }
  else
    snprintf (key, sizeof key, "%s/ossd.key", p.rundir);
  snprintf (keylink, sizeof keylink, "%s/ossd.key", p.rundir);
  if (mkdir (p.rundir, 0755) < 0 && errno != EEXIST)
    {
      fprintf (stderr, "ossdctl: cannot create run directory %s: %s\n",
               p.rundir, strerror (errno));
      return 1;
    }
  /* a watchdog whose nbdkit just died is exiting, or restarting it */
  for (int i = 0; i < 30 && read_pid (&p) <= 0 && read_pidfile (p.watchdog_pidfile) > 0; i++)
    usleep (100000);
  if ((pid = read_pid (&p)) > 0 || (pid = read_pidfile (p.watchdog_pidfile)) > 0)
    {
      fprintf (stderr, "ossdctl: a drive is already running in %s (pid %d); stop it first\n",
               p.rundir, (int) pid);
      return 1;
    }
  unlink (p.sock);
  plugin_path (plugin, sizeof plugin);
  if (access (plugin, R_OK) < 0)
    {
      fprintf (stderr, "ossdctl: nbdkit plugin %s not found (set OSSD_NBDKIT_PLUGIN)\n", plugin);
      return 1;
    }

  static char kv[8][PATH_MAX + 16];
  /* nbdkit runs in the foreground of the watchdog, which forks into the
   * background (its own session) and starts nbdkit again if it crashes;
   * nbdkit writes its pidfile once it has bound the socket. */
  args[na++] = "nbdkit";
  args[na++] = "-f";
  args[na++] = "--log=stderr";
  args[na++] = "-P";
  args[na++] = p.pidfile;
  args[na++] = "-U";
  args[na++] = p.sock;
  args[na++] = "--threads";
  args[na++] = "32";
  args[na++] = plugin;
  snprintf (kv[0], sizeof kv[0], "image=%s", image);
  args[na++] = kv[0];
  args[na++] = "create=true";
  if (format)
    args[na++] = "format=true";
  if (size)
    {
      snprintf (kv[1], sizeof kv[1], "size=%s", size);
      args[na++] = kv[1];
    }
  if (volume)
    {
      snprintf (kv[2], sizeof kv[2], "volume=%s", volume);
      args[na++] = kv[2];
    }
  if (profile)
    {
      snprintf (kv[3], sizeof kv[3], "profile=%s", profile);
      args[na++] = kv[3];
    }
  snprintf (kv[4], sizeof kv[4], "key=%s", key);
  args[na++] = kv[4];
  /* Extra plugin parameters after "--". */
  for (int i = optind; i <= argc && na < 62; i++)
    if (argv[i - 1] && strcmp (argv[i - 1], "--") != 0)
      args[na++] = argv[i - 1];
  args[na] = NULL;

  /* A restart must not format the image again; with --group it binds a
   * side path that the watchdog renames onto the socket once it has the
   * group's mode, so that no client finds a socket it may not open. */
  char *restart_args[64], staged[PATH_MAX + 16];
  int nr = 0;
  snprintf (staged, sizeof staged, "%s.restarting", p.sock);
  for (int i = 0; i <= na; i++)
    if (!args[i] || strcmp (args[i], "format=true") != 0)
      {
        restart_args[nr++] = args[i];
        if (gr && args[i] && strcmp (args[i], "-U") == 0)
          {
            restart_args[nr++] = staged;
            i++;
          }
      }

  pid_t watchdog = fork ();
  if (watchdog < 0)
    {
      perror ("ossdctl: fork");
      return 1;
    }
  if (watchdog == 0)
    {
      int fd = open (p.log, O_WRONLY | O_CREAT | O_APPEND, 0644);
      setsid ();
      if (fd >= 0)
        {
          dup2 (fd, STDOUT_FILENO);
          dup2 (fd, STDERR_FILENO);
          close (fd);
        }
      fd = open ("/dev/null", O_RDONLY);
      if (fd >= 0)
        dup2 (fd, STDIN_FILENO);
      FILE *wp = fopen (p.watchdog_pidfile, "w");
      if (wp)
        {
          fprintf (wp, "%d\n", (int) getpid ());
          fclose (wp);
        }
      struct watchdog_spec w = {
        .first_args = args, .restart_args = restart_args, .image = image,
        .socket = p.sock, .staged_socket = gr ? staged : NULL,
        .state_file = p.restarts,
        .socket_gid = gr ? (int) gr->gr_gid : -1,
        .ram_drive = strcmp (image, "ram:") == 0,
      };
      watchdog_run (&w);
    }
  /* Ready when the socket answers as an ossd drive. */
  char uri[PATH_MAX + 32];
  snprintf (uri, sizeof uri, "nbd+unix:///?socket=%s", p.sock);
  for (int tries = 0; tries < 300; tries++)
    {
      int status = 0;

      if (waitpid (watchdog, &status, WNOHANG) == watchdog)
        {
          fprintf (stderr, "ossdctl: the drive (nbdkit) failed to start; its log %s says:\n", p.log);
          print_log_tail (p.log);
          return 1;
        }
      pid = read_pid (&p);
      if (pid <= 0 && tries > 100)
        {
          fprintf (stderr, "ossdctl: the drive (nbdkit) exited during start-up; its log %s says:\n", p.log);
          print_log_tail (p.log);
          return 1;
        }
      if (pid > 0 && access (p.sock, F_OK) == 0)
        {
          struct ossd_connect_opts o = { .client_name = "ossdctl-start" };
          ossd_error err;
          ossd_t *h;
          if (ossd_connect (uri, &o, &h, &err) == 0)
            {
              ossd_disconnect (h);
              /* Root tools find the key at RUNDIR/ossd.key by default. */
              if (strcmp (key, keylink) != 0)
                {
                  unlink (keylink);
                  if (symlink (key, keylink) < 0)
                    fprintf (stderr, "ossdctl: warning: cannot link %s to %s: %s\n",
                             keylink, key, strerror (errno));
                }
              /* --group: the socket is for root and that group only; the
               * drive's capabilities decide what each may do. */
              if (gr && (chown (p.sock, 0, gr->gr_gid) < 0
                         || chmod (p.sock, 0660) < 0))
                {
                  fprintf (stderr, "ossdctl: cannot give %s to group %s: %s\n",
                           p.sock, group, strerror (errno));
                  return 1;
                }
              if (c->json)
                {
                  printf ("{\"pid\": %d, \"device\": ", (int) pid);
                  json_string (stdout, uri);
                  printf (", \"log\": ");
                  json_string (stdout, p.log);
                  printf ("}\n");
                }
              else
                printf ("drive started: pid %d, device %s, log %s\n",
                        (int) pid, uri, p.log);
              return 0;
            }
        }
      usleep (50000);
    }
  fprintf (stderr, "ossdctl: the drive did not answer on %s within 15 s; log %s:\n",
           p.sock, p.log);
  print_log_tail (p.log);
  return 1;
}

/* Undo the octal escapes (\040 and the like) of a /proc mountinfo field. */
static void
mountinfo_unescape (char *s)
{
  char *d = s;

  for (; *s; s++)
    if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7'
        && s[3] >= '0' && s[3] <= '7')
      {
        *d++ = (char) ((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
        s += 3;
      }
    else
      *d++ = *s;
  *d = '\0';
}

/* How many ossdfs mounts have the drive on socket `sock` as their device
 * (ossdfs names it in the mount's source, "ossdfs:URI"); the first one's
 * mount point goes to `first`. */
static int
ossdfs_mounts_of (const char *sock, char *first, size_t len)
{
  FILE *f = fopen ("/proc/self/mountinfo", "r");
  char line[8192], want[PATH_MAX + 16];
  int n = 0;

  if (!f)
    return 0;
  snprintf (want, sizeof want, "socket=%s", sock);
  while (fgets (line, sizeof line, f))
    {
      char *sep = strstr (line, " - "), *fields[5], *save = NULL, *mnt;
      int k = 0;

      if (!sep)
        continue;
      /* before " - ": id parent major:minor root mountpoint ... */
      *sep = '\0';
      for (char *t = strtok_r (line, " ", &save); t && k < 5; t = strtok_r (NULL, " ", &save))
        fields[k++] = t;
      if (k < 5)
        continue;
      mnt = fields[4];
      /* after: fstype source superoptions */
      char *fstype = strtok_r (sep + 3, " ", &save), *source = strtok_r (NULL, " ", &save);
      if (!fstype || !source || strcmp (fstype, "fuse.ossdfs") != 0)
        continue;
      mountinfo_unescape (source);
      mountinfo_unescape (mnt);
      char *at = strstr (source, want);
      if (strncmp (source, "ossdfs:", 7) == 0 && at
          && (at[strlen (want)] == '\0' || at[strlen (want)] == '&'
              || at[strlen (want)] == ','))
        {
          if (n++ == 0)
            snprintf (first, len, "%s", mnt);
        }
    }
  fclose (f);
  return n;
}

static bool
wait_for_exit (pid_t pid, int tenths)
{
  for (int i = 0; i < tenths && kill (pid, 0) == 0; i++)
    {
      waitpid (pid, NULL, WNOHANG);
      usleep (100000);
    }
  return kill (pid, 0) != 0;
}

static int
device_stop (struct ctl *c, int argc, char **argv)
{
  struct device_paths p;
  char mnt[PATH_MAX] = "";
  bool force = false;
  int nmounts;
  pid_t pid, watchdog;

  for (int i = 0; i < argc; i++)
    if (strcmp (argv[i], "--force") == 0)
      force = true;
    else if (strcmp (argv[i], "--rundir") == 0 && i + 1 < argc)
      i++;
    else
      {
        fprintf (stderr, "ossdctl device stop: unexpected argument '%s' (it takes --rundir DIR, --force)\n",
                 argv[i]);
        return 2;
      }
  paths_from_args (&p, argc, argv);
  pid = read_pid (&p);
  watchdog = read_pidfile (p.watchdog_pidfile);
  if (pid <= 0 && watchdog > 0)
    {
      /* between a crash and its restart: the watchdog ends it */
      kill (watchdog, SIGTERM);
      wait_for_exit (watchdog, 100);
      pid = read_pid (&p);
    }
  if (pid <= 0)
    {
      fprintf (stderr, "ossdctl: no drive running in %s\n", p.rundir);
      unlink (p.pidfile);
      unlink (p.watchdog_pidfile);
      return 1;
    }
  nmounts = ossdfs_mounts_of (p.sock, mnt, sizeof mnt);
  if (nmounts > 0 && !force)
    {
      fprintf (stderr, "ossdctl: the drive in %s is mounted by ossdfs at %s%s; not stopping it\n",
               p.rundir, mnt, nmounts > 1 ? " (and more)" : "");
      fprintf (stderr, "ossdctl: hint: unmount first (fusermount3 -u %s), or stop it anyway with --force\n",
               mnt);
      return 1;
    }
  /* Everything acknowledged becomes durable before any client is cut
   * off: connected clients (ossdfs, PostgreSQL backends) keep nbdkit from
   * exiting on SIGTERM, and are then disconnected by force. */
  {
    struct ctl flush_ctl = *c;
    char uri[PATH_MAX + 32];
    ossd_error err = { 0 };
    ossd_t *h;

    snprintf (uri, sizeof uri, "nbd+unix:///?socket=%s", p.sock);
    flush_ctl.device = uri;
    if ((h = ctl_connect (&flush_ctl)) != NULL)
      {
        if (ossd_flush (h, &err) < 0)
          fprintf (stderr, "ossdctl: warning: FLUSH before stopping failed: %s\n", err.msg);
        ossd_disconnect (h);
      }
  }
  /* the watchdog passes SIGTERM on to nbdkit and does not restart it */
  if (watchdog > 0)
    kill (watchdog, SIGTERM);
  kill (pid, SIGTERM);
  if (!wait_for_exit (pid, 100))
    {
      fprintf (stderr, "ossdctl: drive pid %d still had clients connected after 10 s%s; "
               "it was flushed, now it is killed\n", (int) pid,
               nmounts > 0 ? " (ossdfs mounts get EIO until the drive is started again)" : "");
      kill (pid, SIGKILL);
      if (!wait_for_exit (pid, 100))
        {
          fprintf (stderr, "ossdctl: drive pid %d did not exit after SIGKILL\n", (int) pid);
          return 1;
        }
    }
  if (watchdog > 0)
    wait_for_exit (watchdog, 50);
  unlink (p.pidfile);
  unlink (p.watchdog_pidfile);
  unlink (p.sock);
  if (!c->json)
    printf ("drive stopped (pid %d)\n", (int) pid);
  else
    printf ("{\"stopped\": %d}\n", (int) pid);
  return 0;
}

static int
device_status (struct ctl *c, int argc, char **argv)
{
  struct device_paths p;
  pid_t pid, watchdog;
  int restarts;

  paths_from_args (&p, argc, argv);
  pid = read_pid (&p);
  watchdog = read_pidfile (p.watchdog_pidfile);
  restarts = watchdog > 0 ? watchdog_read_restarts (p.restarts) : 0;
  if (c->json)
    {
      printf ("{\"running\": %s, \"pid\": %d, \"watchdog_pid\": %d, \"restarts\": %d, "
              "\"socket\": ", pid > 0 ? "true" : "false", (int) pid, (int) watchdog, restarts);
      json_string (stdout, p.sock);
      printf (", \"log\": ");
      json_string (stdout, p.log);
      printf ("}\n");
    }
  else if (pid > 0)
    printf ("running: pid %d (watchdog pid %d, %d restart%s after a crash), socket %s, log %s\n",
            (int) pid, (int) watchdog, restarts, restarts == 1 ? "" : "s", p.sock, p.log);
  else if (watchdog > 0)
    printf ("restarting after a crash (watchdog pid %d), socket %s, log %s\n",
            (int) watchdog, p.sock, p.log);
  else
    printf ("not running (run directory %s)\n", p.rundir);
  return pid > 0 ? 0 : 3;
}

int
cmd_device (struct ctl *c, int argc, char **argv)
{
  if (argc < 1)
    {
      fprintf (stderr, "usage: ossdctl device start|stop|status ...\n");
      return 2;
    }
  if (strcmp (argv[0], "start") == 0)
    return device_start (c, argc - 1, argv + 1);
  if (strcmp (argv[0], "stop") == 0)
    return device_stop (c, argc - 1, argv + 1);
  if (strcmp (argv[0], "status") == 0)
    return device_status (c, argc - 1, argv + 1);
  fprintf (stderr, "ossdctl device: unknown subcommand '%s' (start, stop, status)\n", argv[0]);
  return 2;
}
