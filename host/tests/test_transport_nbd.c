/* test_transport_nbd.c - the NBD transport's deadlines, against a Unix
 * socket that listens but never answers (what a SIGSTOPped nbdkit looks
 * like to a client): the connect ends at opts.timeout_ms with ETIMEDOUT
 * and a message naming the drive and the timeout, and at once when the
 * interrupted hook says stop (ERR_CANCELLED / ECANCELED).  Stalls in the
 * middle of a call and reconnecting after a restart need a real drive:
 * tests/integration/30-fault-drive.sh. */
#include <errno.h>
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

static int
stop_on_third_check (void *arg)
{
  int *calls = arg;
  return ++*calls >= 3;
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
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
