/* test_transport_nbd.c - the NBD transport's deadlines, against a Unix
 * socket that listens but never answers (what a SIGSTOPped nbdkit looks
 * like to a client) and against a tiny NBD server that completes the
 * handshake and then never answers a command (a drive that stalls
 * mid-call): the wait ends at opts.timeout_ms with ETIMEDOUT and a
 * message naming the drive and the timeout, and at once when the
 * interrupted hook says stop (ERR_CANCELLED / ECANCELED).  Reconnecting
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
 * every other option refused (NBD_REP_ERR_UNSUP); then read commands and
 * never answer them, until the client goes away. */
static void *
stalling_server (void *arg)
{
  struct silent_drive *d = arg;
  int fd = accept (d->fd, NULL, NULL);
  uint64_t greet[2] = { htobe64 (0x4e42444d41474943ULL),
                        htobe64 (0x49484156454f5054ULL) };
  uint16_t hflags = htobe16 (3);
  uint32_t cflags;
  char buf[65536];

  if (fd < 0)
    return NULL;
  if (write_full (fd, greet, 16) || write_full (fd, &hflags, 2)
      || read_full (fd, &cflags, 4))
    goto out;
  for (;;)
    {
      uint64_t magic;
      uint32_t option, len;

      if (read_full (fd, &magic, 8) || read_full (fd, &option, 4)
          || read_full (fd, &len, 4))
        goto out;
      option = be32toh (option);
      len = be32toh (len);
      if (len > sizeof buf || (len && read_full (fd, buf, len)))
        goto out;
      if (option == 7)          /* NBD_OPT_GO */
        {
          uint8_t info[12];
          uint16_t type = htobe16 (0), flags = htobe16 (1 | 4);
          uint64_t size = htobe64 (1u << 20);

          memcpy (info, &type, 2);
          memcpy (info + 2, &size, 8);
          memcpy (info + 10, &flags, 2);
          if (opt_reply (fd, option, 3, info, sizeof info)
              || opt_reply (fd, option, 1, NULL, 0))
            goto out;
          break;
        }
      if (opt_reply (fd, option, 0x80000001u, NULL, 0))
        goto out;
    }
  while (read (fd, buf, sizeof buf) > 0)
    ;                           /* commands: never answered */
out:
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

static void
test_stalled_command_interrupted (void **state)
{
  struct silent_drive *d = *state;
  int calls = 0;
  struct ossd_connect_opts opts = { .timeout_ms = 60000,
                                    .interrupted = stop_on_third_check,
                                    .interrupted_arg = &calls };
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
  assert_true (ms < 2000);
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
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
