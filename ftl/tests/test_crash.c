/* test_crash.c - random kill -9 points.
 *
 * A forked child runs a random mix of object writes, overwrites of a hot
 * object (GC pressure on a small drive), removes, punches, length changes,
 * attribute updates, atomic batches and flushes.  After every successful
 * ftl_flush it publishes its model of the drive in shared memory (double
 * buffered), and before touching an object it marks the object in the
 * current epoch.  The parent kills it with SIGKILL at a random time,
 * reopens the image (crash recovery), runs ftl_fsck and checks:
 *   - every object not touched since the last completed flush is exactly
 *     as flushed (existence, size, every sector, attribute);
 *   - touched objects hold only self-consistent sectors (old or new);
 *   - the two batch-only objects always carry the same generation.
 * It then rebuilds the model from the drive and starts the next child.
 */
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>

#include "ftl_test_util.h"

#define NOBJ 48
#define NSECT 64
#define PID 1
#define ATTR_PAGE 5
#define KILLS 60

struct model
{
  uint8_t exists[NOBJ];
  uint64_t size[NOBJ];
  uint32_t gen[NOBJ][NSECT];
  uint32_t attr[NOBJ];
};

struct shared
{
  volatile int pub;
  struct model snap[2];
  volatile uint64_t touched[2];
  volatile uint32_t next_gen;
  volatile uint64_t flushes, ops, gc_runs, erases;
  char err[600];
};

static void
make_sector (uint8_t *b, uint64_t oid, uint64_t lpn, uint64_t gen)
{
  memcpy (b, "SECTHDR1", 8);
  memcpy (b + 8, &oid, 8);
  memcpy (b + 16, &lpn, 8);
  memcpy (b + 24, &gen, 8);
  fill_pattern (b + 32, 4096 - 32, oid, lpn * 4096, gen);
}

/* 0 = zero sector, >0 = generation, -1 = garbage */
static int64_t
parse_sector (const uint8_t *b, uint64_t oid, uint64_t lpn)
{
  static const uint8_t zero[4096];
  if (memcmp (b, zero, 4096) == 0)
    return 0;
  uint8_t want[4096];
  uint64_t gen;
  memcpy (&gen, b + 24, 8);
  make_sector (want, oid, lpn, gen);
  if (gen == 0 || memcmp (want, b, 4096) != 0)
    return -1;
  return (int64_t) gen;
}

/* three rounds of KILLS/3 kills, each on a fresh drive with other
 * mapping / allocation / GC policies */
static void
config (struct ftl_config *c, int round)
{
  small_config (c);
  c->blocks_per_plane = 12;
  if (round == 1)
    {
      c->mapping_mode = FTL_MAP_DFTL_SPLIT;
      c->alloc_policy = FTL_ALLOC_INDEX_DATA;
      c->mapping_cache_fraction = 0.1;
    }
  else if (round == 2)
    {
      c->mapping_mode = FTL_MAP_DFTL;
      c->alloc_policy = FTL_ALLOC_PER_OBJECT;
      c->max_open_blocks = 3;
      c->gc_policy = FTL_GC_COST_BENEFIT;
      c->mapping_cache_fraction = 0.1;
    }
}

/* ---------------- child ---------------- */
static struct shared *sh;

static uint64_t rng_state;
static uint32_t
rnd (uint32_t n)
{
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t) ((rng_state >> 33) % n);
}

#define CHILD_CHECK(expr)                                               \
  do {                                                                  \
    int _r = (expr);                                                    \
    if (_r != 0 && _r != -ENOSPC)                                       \
      {                                                                 \
        snprintf (sh->err, sizeof sh->err, "%s -> %d (%.300s) at op %llu",  \
                  #expr, _r, e.msg, (unsigned long long) sh->ops);      \
        _exit (1);                                                      \
      }                                                                 \
    if (_r == -ENOSPC)                                                  \
      applied = false;                                                  \
  } while (0)

static void
touch (int k)
{
  sh->touched[sh->pub] |= 1ull << k;
  __sync_synchronize ();
}

/* The drive profile the child runs under (NULL: the image's own): a
 * paced one must lose and reorder nothing either. */
static const char *child_profile;

static void
child_run (const char *path, uint64_t seed)
{
  ftl_t *f;
  ftl_error e = { "" };
  if (ftl_open (path, &f, &e) != 0)
    {
      snprintf (sh->err, sizeof sh->err, "child open: %s", e.msg);
      _exit (1);
    }
  if (child_profile && ftl_set_profile (f, child_profile, &e) != 0)
    {
      snprintf (sh->err, sizeof sh->err, "child profile: %s", e.msg);
      _exit (1);
    }
  struct model cur = sh->snap[sh->pub];
  rng_state = seed;
  uint8_t buf[4 * 4096];
  uint64_t last_gc = 0, last_erases = 0;
  for (;;)
    {
      bool applied = true;
      sh->ops++;
      uint32_t op = rnd (100);
      int k = op < 30 ? 2 : (int) (2 + rnd (NOBJ - 2));
      if (op < 70)
        {
          /* write 1-4 sectors */
          uint32_t n = 1 + rnd (4);
          uint32_t s0 = rnd (NSECT - n + 1);
          uint32_t gen = ++sh->next_gen;
          touch (k);
          if (!cur.exists[k])
            {
              int rc = ftl_create_object (f, PID, (uint64_t) k, &e);
              if (rc != 0)
                {
                  snprintf (sh->err, sizeof sh->err, "create %d -> %d (%s) "
                            "at op %llu", k, rc, e.msg,
                            (unsigned long long) sh->ops);
                  _exit (1);
                }
              cur.exists[k] = 1;
              cur.size[k] = 0;
              memset (cur.gen[k], 0, sizeof cur.gen[k]);
              cur.attr[k] = 0;
            }
          for (uint32_t i = 0; i < n; i++)
            make_sector (buf + i * 4096, (uint64_t) k, s0 + i, gen);
          CHILD_CHECK (ftl_write (f, PID, (uint64_t) k, (uint64_t) s0 * 4096,
                                  buf, n * 4096, &e));
          if (applied)
            {
              for (uint32_t i = 0; i < n; i++)
                cur.gen[k][s0 + i] = gen;
              if ((uint64_t) (s0 + n) * 4096 > cur.size[k])
                cur.size[k] = (uint64_t) (s0 + n) * 4096;
            }
        }
      else if (op < 73)
        {
          if (!cur.exists[k])
            continue;
          touch (k);
          CHILD_CHECK (ftl_remove_object (f, PID, (uint64_t) k, &e));
          cur.exists[k] = 0;
          cur.size[k] = 0;
          memset (cur.gen[k], 0, sizeof cur.gen[k]);
          cur.attr[k] = 0;
        }
      else if (op < 78)
        {
          if (!cur.exists[k])
            continue;
          uint32_t s0 = rnd (NSECT), n = 1 + rnd (16);
          touch (k);
          CHILD_CHECK (ftl_punch (f, PID, (uint64_t) k, (uint64_t) s0 * 4096,
                                  (uint64_t) n * 4096, &e));
          for (uint32_t i = s0; i < s0 + n && i < NSECT; i++)
            cur.gen[k][i] = 0;
        }
      else if (op < 82)
        {
          if (!cur.exists[k])
            continue;
          uint32_t s = rnd (NSECT + 1);
          touch (k);
          CHILD_CHECK (ftl_set_length (f, PID, (uint64_t) k,
                                       (uint64_t) s * 4096, &e));
          for (uint32_t i = s; i < NSECT; i++)
            cur.gen[k][i] = 0;
          cur.size[k] = (uint64_t) s * 4096;
        }
      else if (op < 86)
        {
          if (!cur.exists[k])
            continue;
          uint32_t gen = ++sh->next_gen;
          touch (k);
          CHILD_CHECK (ftl_set_attr (f, PID, (uint64_t) k, ATTR_PAGE, 1, &gen,
                                     4, &e));
          cur.attr[k] = gen;
        }
      else if (op < 92)
        {
          /* atomic batch on the pair 0/1: same generation in sector 0 */
          uint32_t gen = ++sh->next_gen;
          uint8_t b2[4096];
          make_sector (buf, 0, 0, gen);
          make_sector (b2, 1, 0, gen);
          struct ftl_op ops[4];
          size_t n = 0;
          for (int j = 0; j < 2; j++)
            if (!cur.exists[j])
              ops[n++] = (struct ftl_op) { .kind = FTL_OP_CREATE_OBJECT,
                                           .pid = PID, .oid = (uint64_t) j };
          ops[n++] = (struct ftl_op) { .kind = FTL_OP_WRITE, .pid = PID,
                                       .oid = 0, .off = 0, .len = 4096,
                                       .data = buf };
          ops[n++] = (struct ftl_op) { .kind = FTL_OP_WRITE, .pid = PID,
                                       .oid = 1, .off = 0, .len = 4096,
                                       .data = b2 };
          touch (0);
          touch (1);
          CHILD_CHECK (ftl_apply_batch (f, ops, n, NULL, &e));
          if (applied)
            for (int j = 0; j < 2; j++)
              {
                if (!cur.exists[j])
                  {
                    cur.exists[j] = 1;
                    memset (cur.gen[j], 0, sizeof cur.gen[j]);
                    cur.attr[j] = 0;
                  }
                cur.gen[j][0] = gen;
                if (cur.size[j] < 4096)
                  cur.size[j] = 4096;
              }
        }
      else if (op < 93)
        {
          CHILD_CHECK (ftl_flush (f, &e));
          int np = 1 - sh->pub;
          sh->snap[np] = cur;
          sh->touched[np] = 0;
          __sync_synchronize ();
          sh->pub = np;
          sh->flushes++;
          struct ftl_stats st;
          ftl_get_stats (f, &st, &e);
          sh->gc_runs += st.gc_runs - last_gc;
          sh->erases += st.nand_erases - last_erases;
          last_gc = st.gc_runs;
          last_erases = st.nand_erases;
        }
      else
        CHILD_CHECK (ftl_idle (f, 2000000, &e));
    }
}

/* ---------------- parent ---------------- */
static void
verify_and_rebuild (ftl_t *f, int iter)
{
  ftl_error e = { "" };
  const struct model *m = &sh->snap[sh->pub];
  uint64_t touched = sh->touched[sh->pub];
  struct model now;
  memset (&now, 0, sizeof now);
  uint8_t b[4096];
  for (int k = 0; k < NOBJ; k++)
    {
      bool t = (touched >> k) & 1;
      struct ftl_object_info info;
      int r = ftl_stat_object (f, PID, (uint64_t) k, &info, &e);
      bool ex = r == 0;
      if (!t && ex != (bool) m->exists[k])
        fail_msg ("kill %d: object %d exists=%d, flushed state says %d", iter,
                  k, ex, m->exists[k]);
      if (!ex)
        continue;
      now.exists[k] = 1;
      now.size[k] = info.size;
      if (!t && info.size != m->size[k])
        fail_msg ("kill %d: object %d size %llu, flushed %llu", iter, k,
                  (unsigned long long) info.size,
                  (unsigned long long) m->size[k]);
      for (uint32_t s = 0; s < NSECT && (uint64_t) s * 4096 < info.size; s++)
        {
          size_t n;
          memset (b, 0, sizeof b);
          assert_int_equal (ftl_read (f, PID, (uint64_t) k,
                                      (uint64_t) s * 4096, b, 4096, &n, &e),
                            0);
          int64_t g = parse_sector (b, (uint64_t) k, s);
          if (g < 0)
            fail_msg ("kill %d: object %d sector %u holds garbage", iter, k,
                      s);
          if (!t && (uint32_t) g != m->gen[k][s])
            fail_msg ("kill %d: object %d sector %u generation %lld, flushed "
                      "%u", iter, k, s, (long long) g, m->gen[k][s]);
          now.gen[k][s] = (uint32_t) g;
        }
      uint32_t a = 0;
      size_t al = 0;
      if (ftl_get_attr (f, PID, (uint64_t) k, ATTR_PAGE, 1, &a, 4, &al, &e)
          != 0)
        a = 0;
      if (!t && a != m->attr[k])
        fail_msg ("kill %d: object %d attribute %u, flushed %u", iter, k, a,
                  m->attr[k]);
      now.attr[k] = a;
    }
  if (now.exists[0] != now.exists[1] || now.gen[0][0] != now.gen[1][0])
    fail_msg ("kill %d: batch pair torn: %u/%u vs %u/%u", iter,
              now.exists[0], now.gen[0][0], now.exists[1], now.gen[1][0]);
  sh->snap[sh->pub] = now;
  sh->touched[sh->pub] = 0;
}

static void
random_kills (int kills)
{
  const char *path = tmp_image ("crash");
  sh = mmap (NULL, sizeof *sh, PROT_READ | PROT_WRITE,
             MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  assert_true (sh != MAP_FAILED);
  memset (sh, 0, sizeof *sh);
  struct ftl_config c;
  ftl_t *f;
  ftl_error e = { "" };
  uint64_t seed = 12345;
  uint64_t total_ops = 0;
  for (int iter = 0; iter < kills; iter++)
    {
      if (iter % (kills / 3) == 0)
        {
          config (&c, iter / (kills / 3));
          assert_int_equal (ftl_format (path, &c, &f, &e), 0);
          assert_int_equal (ftl_create_partition (f, PID, &e), 0);
          ftl_close (f);
          memset (sh->snap, 0, sizeof sh->snap);
          sh->touched[0] = sh->touched[1] = 0;
        }
      pid_t pid = fork ();
      if (pid == 0)
        {
          child_run (path, seed + (uint64_t) iter * 7919);
          _exit (0);
        }
      /* kill after a random amount of work (and a random extra delay) */
      uint64_t ops0 = sh->ops;
      uint64_t h = (seed + (uint64_t) iter) * 0x9e3779b97f4a7c15ull;
      uint64_t want = 200 + (h >> 40) % 2500;
      for (int waited = 0; sh->ops - ops0 < want && waited < 20000; waited++)
        {
          if (waitpid (pid, NULL, WNOHANG) == pid)
            fail_msg ("kill %d: child exited on its own: %s", iter, sh->err);
          usleep (200);
        }
      usleep ((useconds_t) ((h >> 20) % 3000));
      kill (pid, SIGKILL);
      int st;
      waitpid (pid, &st, 0);
      if (!WIFSIGNALED (st))
        fail_msg ("kill %d: child exited on its own: %s", iter, sh->err);
      total_ops += sh->ops - ops0;
      if (getenv ("FTL_CRASH_KEEP"))
        {
          char cmd[600];
          snprintf (cmd, sizeof cmd, "cp --sparse=always %s %s.kill%d", path,
                    path, iter);
          if (system (cmd) != 0)
            fail_msg ("cannot keep a copy of the image");
        }
      f = NULL;
      int r = ftl_open (path, &f, &e);
      if (r)
        fail_msg ("kill %d: reopen: %s", iter, e.msg);
      expect_fsck_clean (f);
      verify_and_rebuild (f, iter);
      if (iter % 10 == 9)
        {
          ftl_close (f);   /* also exercise clean reopen */
          assert_int_equal (ftl_open (path, &f, &e), 0);
          expect_fsck_clean (f);
          verify_and_rebuild (f, iter);
        }
      ftl_close (f);
    }
  fprintf (stderr, "# %d kills%s%s, %llu ops, %llu flushes, %llu GC runs, "
           "%llu erases (flushed)\n", kills,
           child_profile ? " under profile " : "",
           child_profile ? child_profile : "", (unsigned long long) total_ops,
           (unsigned long long) sh->flushes, (unsigned long long) sh->gc_runs,
           (unsigned long long) sh->erases);
  munmap (sh, sizeof *sh);
  unlink (path);
}

static void
test_random_kills (void **state)
{
  child_profile = NULL;
  random_kills (KILLS);
}

/* The same kills while the drive paces itself to real time (every
 * operation sleeps to its modelled completion, outside the FTL lock). */
static void
test_random_kills_paced (void **state)
{
  child_profile = "sata-ssd";
  random_kills (KILLS / 4);
  child_profile = NULL;
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_random_kills),
    cmocka_unit_test (test_random_kills_paced),
  };
  return cmocka_run_group_tests_name ("ftl_crash", tests, NULL, NULL);
}
