/* test_transport_nbd.c - the NBD transport's deadlines, against a Unix
 * socket that listens but never answers (what a SIGSTOPped nbdkit looks
 * like to a client) and against a tiny NBD server that completes the
 * handshake and then never answers a command (a drive that stalls
 * mid-call): the wait ends at opts.timeout_ms with ETIMEDOUT and a
 * message naming the drive and the timeout, and when the interrupted hook
 * says stop (ERR_CANCELLED / ECANCELED): at once with nothing in flight,
 * after the reply of a drive that does answer, and after the drain's
 * 2.5 s bound on one that never does.  Reconnecting
 * after a restart needs a real drive: tests/integration/30-fault-drive.sh. */
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cmocka.h>

#include "libossd.h"

struct silent_drive
{
  char dir[64];
  char path[128];
  char uri[200];
  int fd;
  volatile int got_command;    /* late_server read the first command */
  volatile int interrupted;    /* the client's hook said stop */
  int replies_sent;            /* late_server: replies the client took */
  int replies_refused;         /* ... and replies it had hung up on */
};

/* A listening socket nobody accepts on: connect(2) succeeds (backlog),
 * the NBD handshake never gets an answer. */
static int
silent_setup (void **state)
{
  struct silent_drive *d = calloc (1, sizeof *d);
  struct sockaddr_un a = { .sun_family = AF_UNIX };

  assert_non_null (d);
  strcpy (d->dir, "/tmp/ossd-nbd-test.XXXXXX");
  assert_non_null (mkdtemp (d->dir));
  snprintf (d->path, sizeof d->path, "%s/silent.sock", d->dir);
  snprintf (d->uri, sizeof d->uri, "nbd+unix:///?socket=%s", d->path);
  snprintf (a.sun_path, sizeof a.sun_path, "%s", d->path);
  d->fd = socket (AF_UNIX, SOCK_STREAM, 0);
  assert_true (d->fd >= 0);
  assert_int_equal (bind (d->fd, (struct sockaddr *) &a, sizeof a), 0);
  assert_int_equal (listen (d->fd, 8), 0);
  *state = d;
  return 0;
}

static int
silent_teardown (void **state)
{
  struct silent_drive *d = *state;

  close (d->fd);
  unlink (d->path);
  rmdir (d->dir);
  free (d);
  return 0;
}

static int
stop_on_third_check (void *arg)
{
  int *calls = arg;
  return ++*calls >= 3;
}

/* ---- an NBD server that goes silent after the handshake ---------------- */

static int
read_full (int fd, void *buf, size_t n)
{
  for (size_t off = 0; off < n;)
    {
      ssize_t r = read (fd, (char *) buf + off, n - off);
      if (r <= 0)
        return -1;
      off += (size_t) r;
    }
  return 0;
}

static int
write_full (int fd, const void *buf, size_t n)
{
  /* no SIGPIPE when the client already gave up */
  return send (fd, buf, n, MSG_NOSIGNAL) == (ssize_t) n ? 0 : -1;
}

static int
opt_reply (int fd, uint32_t option, uint32_t type, const void *data,
           uint32_t len)
{
  uint64_t magic = htobe64 (0x3e889045565a9ULL);
  uint32_t o = htobe32 (option), t = htobe32 (type), l = htobe32 (len);

  if (write_full (fd, &magic, 8) || write_full (fd, &o, 4)
      || write_full (fd, &t, 4) || write_full (fd, &l, 4))
    return -1;
  return len ? write_full (fd, data, len) : 0;
}

/* Fixed newstyle handshake: NBD_OPT_GO answered with a 1 MiB export,
 * every other option refused (NBD_REP_ERR_UNSUP).  0 when done. */
static int
server_handshake (int fd)
{
  uint64_t greet[2] = { htobe64 (0x4e42444d41474943ULL),
                        htobe64 (0x49484156454f5054ULL) };
  uint16_t hflags = htobe16 (3);
  uint32_t cflags;
  char buf[4096];

  if (write_full (fd, greet, 16) || write_full (fd, &hflags, 2)
      || read_full (fd, &cflags, 4))
    return -1;
  for (;;)
    {
      uint64_t magic;
      uint32_t option, len;

      if (read_full (fd, &magic, 8) || read_full (fd, &option, 4)
          || read_full (fd, &len, 4))
        return -1;
      option = be32toh (option);
      len = be32toh (len);
      if (len > sizeof buf || (len && read_full (fd, buf, len)))
        return -1;
      if (option == 7)          /* NBD_OPT_GO */
        {
          uint8_t info[12];
          uint16_t type = htobe16 (0), flags = htobe16 (1 | 4);
          uint64_t size = htobe64 (1u << 20);

          memcpy (info, &type, 2);
          memcpy (info + 2, &size, 8);
          memcpy (info + 10, &flags, 2);
          return opt_reply (fd, option, 3, info, sizeof info)
            || opt_reply (fd, option, 1, NULL, 0) ? -1 : 0;
        }
      if (opt_reply (fd, option, 0x80000001u, NULL, 0))
        return -1;
    }
}

/* The handshake, then read commands and never answer them, until the
 * client goes away. */
static void *
stalling_server (void *arg)
{
  struct silent_drive *d = arg;
  int fd = accept (d->fd, NULL, NULL);
  char buf[65536];

  if (fd < 0)
    return NULL;
  if (server_handshake (fd) == 0)
    while (read (fd, buf, sizeof buf) > 0)
      d->got_command = 1;       /* commands: never answered */
  close (fd);
  return NULL;
}

/* The handshake, then the first command is answered only after the
 * client's interrupted hook said stop: counts whether the client still
 * took the reply (a client that hangs up with replies queued makes
 * nbdkit <= 1.33.9 abort). */
static void *
late_server (void *arg)
{
  struct silent_drive *d = arg;
  int fd = accept (d->fd, NULL, NULL);
  static char buf[1 << 17];
  unsigned char req[28];

  if (fd < 0)
    return NULL;
  if (server_handshake (fd) == 0 && read_full (fd, req, sizeof req) == 0)
    {
      uint16_t type = be16toh (*(uint16_t *) (req + 6));
      uint32_t len = be32toh (*(uint32_t *) (req + 24));
      uint32_t magic = htobe32 (0x67446698), error = 0;

      if (type == 1 && len <= sizeof buf)   /* NBD_CMD_WRITE: its data */
        read_full (fd, buf, len);
      d->got_command = 1;
      for (int i = 0; i < 500 && !d->interrupted; i++)
        usleep (10000);
      usleep (100000);          /* the client has had time to hang up */
      memset (buf, 0, sizeof buf);
      if (write_full (fd, &magic, 4) == 0 && write_full (fd, &error, 4) == 0
          && write_full (fd, req + 8, 8) == 0
          && (type != 0 || len > sizeof buf || write_full (fd, buf, len) == 0))
        d->replies_sent++;
      else
        d->replies_refused++;
      while (read (fd, buf, sizeof buf) > 0)
        ;
    }
  close (fd);
  return NULL;
}

static void
test_stalled_command_times_out (void **state)
{
  struct silent_drive *d = *state;
  struct ossd_connect_opts opts = { .timeout_ms = 400 };
  ossd_error err = { 0 };
  ossd_t *o = NULL;
  pthread_t th;
  uint64_t t0, ms;

  assert_int_equal (pthread_create (&th, NULL, stalling_server, d), 0);
  t0 = ossd_mono_ns ();
  /* connected; the read of the control block is never answered */
  assert_true (ossd_connect (d->uri, &opts, &o, &err) < 0);
  ms = (ossd_mono_ns () - t0) / 1000000;
  pthread_join (th, NULL);      /* the client dropped the connection */
  assert_null (o);
  assert_int_equal (err.status, OSSD_STATUS_TRANSPORT);
  assert_int_equal (err.errnum, ETIMEDOUT);
  assert_non_null (strstr (err.msg, d->path));
  assert_non_null (strstr (err.msg, "400 ms"));
  assert_true (ms < 400 + 2000);
}

/* stop once the command is in flight (the server has it) */
static int
stop_and_tell (void *arg)
{
  struct silent_drive *d = arg;

  if (d->got_command)
    d->interrupted = 1;
  return d->interrupted;
}

/* Interrupted while a command is in flight on a drive that never answers:
 * the wait first drains (the drive might still reply, see transport_nbd.c)
 * for at most its 2.5 s, then hangs up and reports the cancel. */
static void
test_stalled_command_interrupted (void **state)
{
  struct silent_drive *d = *state;
  struct ossd_connect_opts opts = { .timeout_ms = 60000,
                                    .interrupted = stop_and_tell,
                                    .interrupted_arg = d };
  ossd_error err = { 0 };
  ossd_t *o = NULL;
  pthread_t th;
  uint64_t t0, ms;

  assert_int_equal (pthread_create (&th, NULL, stalling_server, d), 0);
  t0 = ossd_mono_ns ();
  assert_true (ossd_connect (d->uri, &opts, &o, &err) < 0);
  ms = (ossd_mono_ns () - t0) / 1000000;
  pthread_join (th, NULL);
  assert_null (o);
  assert_int_equal (err.status, OSSD__STATUS__ERR_CANCELLED);
  assert_int_equal (err.errnum, ECANCELED);
  assert_true (ms < 2500 + 2000);   /* the drain's bound, not the 60 s */
}

/* An interrupted wait on a drive that answers lets the command in flight
 * finish before it drops the connection. */
static void
test_interrupted_wait_takes_reply_in_flight (void **state)
{
  struct silent_drive *d = *state;
  struct ossd_connect_opts opts = { .timeout_ms = 60000,
                                    .interrupted = stop_and_tell,
                                    .interrupted_arg = d };
  ossd_error err = { 0 };
  ossd_t *o = NULL;
  pthread_t th;

  assert_int_equal (pthread_create (&th, NULL, late_server, d), 0);
  assert_true (ossd_connect (d->uri, &opts, &o, &err) < 0);
  pthread_join (th, NULL);
  assert_null (o);
  assert_int_equal (err.errnum, ECANCELED);
  assert_int_equal (d->replies_refused, 0);
  assert_int_equal (d->replies_sent, 1);
}

static void
test_connect_times_out (void **state)
{
  struct silent_drive *d = *state;
  struct ossd_connect_opts opts = { .timeout_ms = 300 };
  ossd_error err = { 0 };
  ossd_t *o = NULL;
  uint64_t t0 = ossd_mono_ns (), ms;

  assert_true (ossd_connect (d->uri, &opts, &o, &err) < 0);
  ms = (ossd_mono_ns () - t0) / 1000000;
  assert_null (o);
  assert_int_equal (err.status, OSSD_STATUS_TRANSPORT);
  assert_int_equal (err.errnum, ETIMEDOUT);
  assert_non_null (strstr (err.msg, d->path));
  assert_non_null (strstr (err.msg, "300 ms"));
  /* the deadline, not the old unbounded wait (generous: shared CPUs) */
  assert_true (ms < 300 + 2000);
}

static void
test_connect_interrupted (void **state)
{
  struct silent_drive *d = *state;
  int calls = 0;
  struct ossd_connect_opts opts = { .timeout_ms = 60000,
                                    .interrupted = stop_on_third_check,
                                    .interrupted_arg = &calls };
  ossd_error err = { 0 };
  ossd_t *o = NULL;
  uint64_t t0 = ossd_mono_ns (), ms;

  assert_true (ossd_connect (d->uri, &opts, &o, &err) < 0);
  ms = (ossd_mono_ns () - t0) / 1000000;
  assert_null (o);
  assert_int_equal (err.status, OSSD__STATUS__ERR_CANCELLED);
  assert_int_equal (err.errnum, ECANCELED);
  assert_int_equal (calls, 3);
  /* checked every 100 ms: three checks, far below the 60 s timeout */
  assert_true (ms < 2000);
}

static void
test_connect_refused_fails_at_once (void **state)
{
  struct silent_drive *d = *state;
  struct ossd_connect_opts opts = { .timeout_ms = 60000 };
  ossd_error err = { 0 };
  ossd_t *o = NULL;
  char uri[300];
  uint64_t t0 = ossd_mono_ns ();

  snprintf (uri, sizeof uri, "nbd+unix:///?socket=%s/none.sock", d->dir);
  assert_true (ossd_connect (uri, &opts, &o, &err) < 0);
  assert_int_equal (err.status, OSSD_STATUS_TRANSPORT);
  assert_true ((ossd_mono_ns () - t0) / 1000000 < 2000);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown (test_connect_times_out, silent_setup, silent_teardown),
    cmocka_unit_test_setup_teardown (test_connect_interrupted, silent_setup, silent_teardown),
    cmocka_unit_test_setup_teardown (test_connect_refused_fails_at_once, silent_setup, silent_teardown),
    cmocka_unit_test_setup_teardown (test_stalled_command_times_out, silent_setup, silent_teardown),
    cmocka_unit_test_setup_teardown (test_stalled_command_interrupted, silent_setup, silent_teardown),
    cmocka_unit_test_setup_teardown (test_interrupted_wait_takes_reply_in_flight, silent_setup, silent_teardown),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
