/* test_client_inproc.c - libossd's slot handling on an in-process drive:
 * a client idle past its lease claims its slot again and goes on working;
 * several threads share one connection through separate slots; errors
 * of READ and WRITE come back as the drive's answers; the before_wait
 * hook runs on the caller's thread before each wait for the drive; a
 * client without the key carries the capabilities it was given; a slot
 * whose lease ran out while a call was on it (the drive refuses it) is
 * claimed again by the next call; after every lease ran out (a stopped
 * drive) and another host took one of our slots, two of our slots never
 * land on one drive slot. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <unistd.h>
#include <errno.h>
#include <cmocka.h>

#include "libossd.h"
#include "ossd.pb-c.h"
#include "ossd_frame.h"
#include "../libossd/client_internal.h"

static void
test_idle_past_lease_renews (void **state)
{
  ossd_t *o;
  ossd_error err;
  char buf[16];
  size_t got;

  assert_int_equal (ossd_connect ("inproc:ram:?size=64M&volume=1M&slots=4&window=8&lease_ms=300",
                                  NULL, &o, &err), 0);
  assert_int_equal (ossd_create_partition (o, 3, &err), 0);
  assert_int_equal (ossd_create (o, 3, 1, &err), 0);
  assert_int_equal (ossd_write (o, 3, 1, 0, "leased", 6, &err), 0);
  usleep (900 * 1000);          /* three leases */
  if (ossd_read (o, 3, 1, 0, buf, sizeof buf, &got, &err) < 0)
    fail_msg ("read after an idle lease: %s", err.msg);
  assert_int_equal (got, 6);
  assert_memory_equal (buf, "leased", 6);
  ossd_disconnect (o);
}

/* Errors come back as the drive's answer, not as a timeout. */
static void
test_read_errors_are_answers (void **state)
{
  ossd_t *o;
  ossd_error err;
  char buf[64];
  size_t got;

  assert_int_equal (ossd_connect ("inproc:ram:?size=64M&volume=1M&slots=4&window=8&poll_ms=5000",
                                  NULL, &o, &err), 0);
  assert_int_equal (ossd_create_partition (o, 3, &err), 0);
  assert_int_equal (ossd_read (o, 3, 77, 0, buf, sizeof buf, &got, &err), -ENOENT);
  assert_int_equal (err.status, OSSD__STATUS__ERR_NOT_FOUND);
  assert_non_null (strstr (err.msg, "oid 77"));
  /* and a read past the end is short, not an error */
  assert_int_equal (ossd_create (o, 3, 78, &err), 0);
  assert_int_equal (ossd_write (o, 3, 78, 0, "abc", 3, &err), 0);
  assert_int_equal (ossd_read (o, 3, 78, 0, buf, sizeof buf, &got, &err), 0);
  assert_int_equal (got, 3);
  assert_int_equal (ossd_read (o, 3, 78, 100, buf, sizeof buf, &got, &err), 0);
  assert_int_equal (got, 0);
  ossd_disconnect (o);
}

/* WRITEs are answered by the block WRITE that carries them
 * (OSSD_FEATURE_ACK_IN_WRITE): a success needs no response, a failure
 * still brings the drive's status and reason, and the slot goes on
 * working; a WRITE of several commands (larger than a window) and other
 * commands after it are answered as usual. */
static void
test_write_answers_in_the_write (void **state)
{
  ossd_t *o;
  ossd_error err;
  size_t big = 200000, got;
  char *data = malloc (big), *back = malloc (big);
  char buf[16];

  assert_non_null (data);
  assert_non_null (back);
  for (size_t i = 0; i < big; i++)
    data[i] = (char) (i * 7 + i / 4096);
  assert_int_equal (ossd_connect ("inproc:ram:?size=64M&volume=1M&slots=4&window=8&poll_ms=5000",
                                  NULL, &o, &err), 0);
  assert_true (ossd_control_block (o)->feature_bits & OSSD_FEATURE_ACK_IN_WRITE);
  /* pg_ossd sends kernels calling helper 23 only to a drive announcing it */
  assert_true (ossd_control_block (o)->feature_bits & OSSD_FEATURE_TEXT_SUBSTR);
  assert_int_equal (ossd_create_partition (o, 3, &err), 0);
  memset (&err, 0, sizeof err);
  assert_int_equal (ossd_write (o, 3, 90, 0, "nobody", 6, &err), -ENOENT);
  assert_int_equal (err.status, OSSD__STATUS__ERR_NOT_FOUND);
  assert_non_null (strstr (err.msg, "oid 90"));
  assert_int_equal (ossd_create (o, 3, 91, &err), 0);
  assert_int_equal (ossd_write (o, 3, 91, 4, "after", 5, &err), 0);
  assert_int_equal (ossd_read (o, 3, 91, 0, buf, sizeof buf, &got, &err), 0);
  assert_int_equal (got, 9);
  assert_memory_equal (buf, "\0\0\0\0after", 9);
  /* several commands (window = 8 LBAs) */
  assert_int_equal (ossd_write (o, 3, 91, 0, data, big, &err), 0);
  assert_int_equal (ossd_read (o, 3, 91, 0, back, big, &got, &err), 0);
  assert_int_equal (got, big);
  assert_memory_equal (back, data, big);
  assert_int_equal (ossd_write (o, 3, 92, 0, data, big, &err), -ENOENT);
  ossd_disconnect (o);
  free (data);
  free (back);
}

struct hook_count
{
  pthread_t caller;
  int calls, elsewhere;
};

static void
count_waits (void *arg)
{
  struct hook_count *h = arg;

  h->calls++;
  if (!pthread_equal (h->caller, pthread_self ()))
    h->elsewhere++;
}

static void
test_before_wait_hook (void **state)
{
  struct hook_count h = { .caller = pthread_self () };
  struct ossd_connect_opts opts = { .before_wait = count_waits,
                                    .before_wait_arg = &h,
                                    .spin_us = 100 };
  ossd_t *o;
  ossd_error err;
  char buf[8];
  size_t got;
  int before;

  assert_int_equal (ossd_connect ("inproc:ram:?size=64M&volume=1M&slots=4&window=8",
                                  &opts, &o, &err), 0);
  assert_int_equal (ossd_create_partition (o, 3, &err), 0);
  assert_int_equal (ossd_create (o, 3, 5, &err), 0);
  before = h.calls;
  assert_int_equal (ossd_write (o, 3, 5, 0, "hooked", 6, &err), 0);
  assert_true (h.calls > before);       /* the WRITE waited for the drive */
  before = h.calls;
  assert_int_equal (ossd_read (o, 3, 5, 0, buf, 6, &got, &err), 0);
  assert_true (h.calls > before);
  assert_int_equal (got, 6);
  assert_memory_equal (buf, "hooked", 6);
  assert_int_equal (h.elsewhere, 0);
  ossd_disconnect (o);
}

struct worker_arg
{
  ossd_t *o;
  int id;
  int ok;
};

static void *
worker (void *p)
{
  struct worker_arg *a = p;
  ossd_error err;
  char want[64], got[64];
  size_t n;

  a->ok = 1;
  for (int i = 0; i < 50 && a->ok; i++)
    {
      snprintf (want, sizeof want, "thread %d write %d", a->id, i);
      if (ossd_write (a->o, 3, 100 + a->id, 0, want, strlen (want), &err) < 0
          || ossd_read (a->o, 3, 100 + a->id, 0, got, strlen (want), &n, &err) < 0
          || n != strlen (want) || memcmp (want, got, n) != 0)
        a->ok = 0;
    }
  return NULL;
}

static void
test_threads_share_a_connection (void **state)
{
  struct ossd_connect_opts opts = { .max_slots = 3 };
  struct worker_arg args[6];
  pthread_t th[6];
  ossd_t *o;
  ossd_error err;

  assert_int_equal (ossd_connect ("inproc:ram:?size=64M&volume=1M&slots=4&window=8",
                                  &opts, &o, &err), 0);
  assert_int_equal (ossd_create_partition (o, 3, &err), 0);
  for (int i = 0; i < 6; i++)
    {
      assert_int_equal (ossd_create (o, 3, 100 + i, &err), 0);
      args[i] = (struct worker_arg) { .o = o, .id = i };
      pthread_create (&th[i], NULL, worker, &args[i]);
    }
  for (int i = 0; i < 6; i++)
    {
      pthread_join (th[i], NULL);
      assert_true (args[i].ok);
    }
  ossd_disconnect (o);
}


/* Capabilities: a client without the key is refused, then carries the
 * capabilities it was given, each on the calls it covers. */
static void
test_capabilities_given_to_a_client (void **state)
{
  char dir[] = "/tmp/ossd-test-caps.XXXXXX", uri[300], keyf[300], why[300];
  char text[OSSD_CAP_TEXT_MAX], buf[16];
  struct ossd_connect_opts opts = { 0 };
  uint8_t key[OSSD_KEY_BYTES];
  struct ossd_cap c;
  ossd_t *o;
  ossd_error err;
  size_t got;

  assert_non_null (mkdtemp (dir));
  snprintf (uri, sizeof uri, "inproc:%s/img?create=1&size=64M&volume=1M&slots=4&window=8", dir);
  snprintf (keyf, sizeof keyf, "%s/img.key", dir);
  /* The drive's own process holds its key. */
  assert_int_equal (ossd_connect (uri, NULL, &o, &err), 0);
  assert_true (ossd_has_master_key (o));
  assert_int_equal (ossd_create_partition (o, 3, &err), 0);
  assert_int_equal (ossd_create (o, 3, 1, &err), 0);
  assert_int_equal (ossd_create (o, 3, 2, &err), 0);
  assert_int_equal (ossd_write (o, 3, 1, 0, "secret", 6, &err), 0);
  ossd_disconnect (o);

  opts.key_file = "";                   /* no key at all */
  assert_int_equal (ossd_connect (uri, &opts, &o, &err), 0);
  assert_false (ossd_has_master_key (o));
  assert_int_equal (ossd_read (o, 3, 1, 0, buf, sizeof buf, &got, &err), -EACCES);
  assert_int_equal (err.status, OSSD__STATUS__ERR_PERMISSION);
  assert_non_null (strstr (err.msg, "permission denied"));
  c = (struct ossd_cap) { .pid = 3, .oid = 1, .rights = OSSD_RIGHT_READ,
    .expiry_ns = ossd_realtime_ns () + 60000000000ull };
  assert_int_equal (ossd_mint_capability (o, &c, &err), -EPERM);

  /* Minted by the key's holder (as ossdfs does), given to this client. */
  if (ossd_key_load (keyf, key, why, sizeof why) < 0)
    fail_msg ("%s", why);
  ossd_cap_sign (key, &c);
  assert_int_equal (ossd_add_capability (o, &c, &err), 0);
  assert_int_equal (ossd_read (o, 3, 1, 0, buf, sizeof buf, &got, &err), 0);
  assert_int_equal (got, 6);
  assert_memory_equal (buf, "secret", 6);
  assert_int_equal (ossd_write (o, 3, 1, 0, "XX", 2, &err), -EACCES);
  assert_non_null (strstr (err.msg, "it needs write"));
  assert_int_equal (ossd_read (o, 3, 2, 0, buf, sizeof buf, &got, &err), -EACCES);
  /* the text form, for another object */
  c = (struct ossd_cap) { .pid = 3, .oid = 2, .rights = OSSD_RIGHT_READ | OSSD_RIGHT_WRITE,
    .expiry_ns = ossd_realtime_ns () + 60000000000ull };
  ossd_cap_sign (key, &c);
  assert_true (ossd_cap_format (&c, text, sizeof text) > 0);
  assert_int_equal (ossd_add_capability_text (o, text, &err), 0);
  assert_int_equal (ossd_write (o, 3, 2, 0, "mine", 4, &err), 0);
  assert_int_equal (ossd_read (o, 3, 2, 0, buf, sizeof buf, &got, &err), 0);
  assert_int_equal (got, 4);
  assert_int_equal (ossd_add_capability_text (o, "ossdcap1 garbage", &err), -EINVAL);
  c.expiry_ns = ossd_realtime_ns () - 1;
  ossd_cap_sign (key, &c);
  assert_int_equal (ossd_add_capability (o, &c, &err), -EACCES);
  ossd_disconnect (o);

  /* A key file named explicitly must load. */
  opts.key_file = "/nonexistent/ossd.key";
  assert_true (ossd_connect (uri, &opts, &o, &err) < 0);
  assert_non_null (strstr (err.msg, "/nonexistent/ossd.key"));
  snprintf (why, sizeof why, "rm -rf %s", dir);
  assert_int_equal (system (why), 0);
}

/* Sleeps past the lease once, just before the drive sees a call's frames:
 * as if the drive had been stopped that long (the VM suite's fault-stop
 * over sg: and nvme:, which have no connection to lose). */
struct stall
{
  int armed;
  useconds_t us;
};

static void
stall_once (void *arg)
{
  struct stall *st = arg;
  if (st->armed)
    {
      st->armed = 0;
      usleep (st->us);
    }
}

static void
test_slot_lost_under_a_call_is_claimed_again (void **state)
{
  struct stall st = { 0, 500 * 1000 };
  struct ossd_connect_opts opts = { .before_wait = stall_once,
                                    .before_wait_arg = &st };
  ossd_t *o;
  ossd_error err;
  struct ossd_object_stat os;

  assert_int_equal (ossd_connect ("inproc:ram:?size=64M&volume=1M&slots=4&window=8&lease_ms=300",
                                  &opts, &o, &err), 0);
  assert_int_equal (ossd_create_partition (o, 3, &err), 0);
  assert_int_equal (ossd_create (o, 3, 9, &err), 0);
  st.armed = 1;
  /* the frames arrive 500 ms after the slot was last used: lease gone */
  assert_true (ossd_stat (o, 3, 9, &os, &err) < 0);
  assert_int_equal (err.status, OSSD_STATUS_TRANSPORT);
  assert_non_null (strstr (err.msg, "expired"));
  /* at once, not after an idle half lease: claimed again, works */
  if (ossd_stat (o, 3, 9, &os, &err) < 0)
    fail_msg ("the call after a lost slot: %s", err.msg);
  assert_int_equal (ossd_write (o, 3, 9, 0, "again", 5, &err), 0);
  ossd_disconnect (o);
}

/* Another host's Claim of drive slot `slot`, written raw through o's own
 * transport (the drive tells hosts apart by nonce only). */
static void
claim_as_another_host (ossd_t *o, uint32_t slot, uint64_t nonce)
{
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__Claim claim = OSSD__CLAIM__INIT;
  struct ossd_frame_hdr h = { 0 };
  uint8_t msg[256], *lba = NULL;
  char why[300];
  size_t len;

  claim.nonce = nonce;
  claim.max_chunk = OSSD_LBA_SIZE;
  claim.client = (char *) "another host";
  req.body_case = OSSD__REQUEST__BODY_CLAIM;
  req.claim = &claim;
  len = ossd__request__pack (&req, msg);
  assert_int_equal (posix_memalign ((void **) &lba, OSSD_LBA_SIZE, OSSD_LBA_SIZE), 0);
  memset (lba, 0, OSSD_LBA_SIZE);
  h.slot = slot;
  h.nonce = nonce;
  h.total_length = len;
  h.flags = OSSD_F_FIRST | OSSD_F_LAST;
  ossd_frame_encode (&h, msg, len, lba, OSSD_LBA_SIZE);
  if (ossd_transport_pwrite (o->t, lba, OSSD_LBA_SIZE,
                             ossd_request_lba (&o->ctl, slot) * OSSD_LBA_SIZE,
                             why, sizeof why) < 0)
    fail_msg ("another host's claim of slot %u: %s", slot, why);
  free (lba);
}

/* Both of a client's slots lose their leases (the drive was stopped);
 * another host then claims the drive slot of the first.  Renewing it must
 * not take the second's drive slot, which the control block shows free
 * (its lease ran out too): two of our slots on one drive slot cancel each
 * other's requests, and every call after would time out (the VM suite's
 * fault-stop over sg: on SATA). */
static void
test_expired_slots_never_share_a_drive_slot (void **state)
{
  struct ossd_connect_opts opts = { .max_slots = 2, .timeout_ms = 3000 };
  static uint8_t data[96 * 1024], back[96 * 1024];
  ossd_t *o;
  ossd_error err;
  size_t got;

  for (size_t i = 0; i < sizeof data; i++)
    data[i] = (uint8_t) (i * 7 + 3);
  assert_int_equal (ossd_connect ("inproc:ram:?size=64M&volume=1M&slots=2&window=8&lease_ms=400",
                                  &opts, &o, &err), 0);
  assert_int_equal (ossd_create_partition (o, 3, &err), 0);
  assert_int_equal (ossd_create (o, 3, 5, &err), 0);
  assert_int_equal (ossd_write (o, 3, 5, 0, data, sizeof data, &err), 0);
  if (ossd_read (o, 3, 5, 0, back, sizeof back, &got, &err) < 0)
    fail_msg ("read with both slots: %s", err.msg);
  assert_int_equal (o->n_slots, 2);
  assert_int_not_equal (o->slots[0].index, o->slots[1].index);

  usleep (1000 * 1000);         /* both leases run out */
  claim_as_another_host (o, o->slots[0].index, 0x5eed5eed5eedull);
  memset (back, 0, sizeof back);
  if (ossd_read (o, 3, 5, 0, back, sizeof back, &got, &err) < 0)
    fail_msg ("read after another host took one of our slots: %s", err.msg);
  assert_int_equal (got, sizeof data);
  assert_memory_equal (back, data, sizeof data);
  for (uint32_t i = 0; i < o->n_slots; i++)
    for (uint32_t j = i + 1; j < o->n_slots; j++)
      if (o->slots[i].index == o->slots[j].index && !o->slots[i].recheck
          && !o->slots[j].recheck)
        fail_msg ("our slots %u and %u both hold drive slot %u", i, j,
                  o->slots[i].index);
  ossd_disconnect (o);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_idle_past_lease_renews),
    cmocka_unit_test (test_slot_lost_under_a_call_is_claimed_again),
    cmocka_unit_test (test_expired_slots_never_share_a_drive_slot),
    cmocka_unit_test (test_threads_share_a_connection),
    cmocka_unit_test (test_read_errors_are_answers),
    cmocka_unit_test (test_write_answers_in_the_write),
    cmocka_unit_test (test_before_wait_hook),
    cmocka_unit_test (test_capabilities_given_to_a_client),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
