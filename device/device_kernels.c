/* device_kernels.c - kernels deployed on the drive (KERNEL DEPLOY, LIST,
 * REMOVE).  Each is verified before it is accepted and kept as an object
 * of the system partition (its image as data, name/format/time as
 * attributes), so deployed kernels survive restarts; at open they are
 * loaded and verified again.  Scans take a reference, so a kernel removed
 * while a scan uses it stays alive until that scan ends. */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "device_internal.h"
#include "ossd_rt.h"

#define KATTR_PAGE 0x11u
#define KATTR_NAME 1u
#define KATTR_FORMAT 2u
#define KATTR_TIME 3u
#define MAX_KERNELS 1024
#define VERIFIER_LOG 4096

struct device_kernel
{
  atomic_int refs;
  char name[64];
  uint64_t oid;
  struct ossd_prog *prog;
  char format[8];
  uint64_t deployed_ns;
  uint64_t hash64;
};

struct ossd_kernel_registry
{
  pthread_mutex_t lock;
  struct device_kernel *k[MAX_KERNELS];
  size_t n;
  uint64_t next_oid;
};

void
device_kernel_put (struct device_kernel *k)
{
  if (k && atomic_fetch_sub (&k->refs, 1) == 1)
    {
      ossd_prog_free (k->prog);
      free (k);
    }
}

const struct ossd_prog *
device_kernel_prog (const struct device_kernel *k)
{
  return k->prog;
}

struct device_kernel *
device_kernel_get (ossd_device_t *dev, const char *name)
{
  struct ossd_kernel_registry *r = dev->kernels;
  struct device_kernel *found = NULL;

  pthread_mutex_lock (&r->lock);
  for (size_t i = 0; i < r->n; i++)
    if (strcmp (r->k[i]->name, name) == 0)
      {
        found = r->k[i];
        atomic_fetch_add (&found->refs, 1);
        break;
      }
  pthread_mutex_unlock (&r->lock);
  return found;
}

static bool
valid_name (const char *n)
{
  size_t len = strlen (n);
  if (len == 0 || len > 63)
    return false;
  for (size_t i = 0; i < len; i++)
    if (!(n[i] == '_' || n[i] == '-' || n[i] == '.'
          || (n[i] >= '0' && n[i] <= '9') || (n[i] >= 'a' && n[i] <= 'z')
          || (n[i] >= 'A' && n[i] <= 'Z')))
      return false;
  return true;
}

/* Load and verify an image; on rejection `log` says why ("insn N: ..."). */
static int
kernel_build (const void *image, size_t len, struct ossd_prog **prog,
              char *log, size_t loglen)
{
  int r = ossd_prog_load (image, len, prog, log, loglen);
  if (r < 0)
    return r;
  r = ossd_prog_verify (*prog, log, loglen);
  if (r < 0)
    {
      ossd_prog_free (*prog);
      *prog = NULL;
    }
  return r;
}

static uint64_t
hash64_of (const struct ossd_prog *p)
{
  uint64_t h;
  memcpy (&h, p->hash, sizeof h);
  return h;
}

static struct device_kernel *
kernel_new (const char *name, uint64_t oid, struct ossd_prog *prog,
            const char *format, uint64_t when)
{
  struct device_kernel *k = calloc (1, sizeof *k);
  if (!k)
    return NULL;
  atomic_init (&k->refs, 1);
  snprintf (k->name, sizeof k->name, "%s", name);
  snprintf (k->format, sizeof k->format, "%s", format);
  k->oid = oid;
  k->prog = prog;
  k->deployed_ns = when;
  k->hash64 = hash64_of (prog);
  return k;
}

int
device_kernels_open (ossd_device_t *dev, char *why, size_t whylen)
{
  struct ossd_kernel_registry *r = calloc (1, sizeof *r);
  uint64_t oids[MAX_KERNELS];
  size_t n = 0;
  ftl_error fe = { "" };

  if (!r)
    return -ENOMEM;
  pthread_mutex_init (&r->lock, NULL);
  r->next_oid = OSSD_KERNEL_OID_BASE;
  dev->kernels = r;
  if (ftl_list_objects (dev->ftl, OSSD_SYS_PID, OSSD_KERNEL_OID_BASE - 1,
                        oids, MAX_KERNELS, &n, &fe) < 0)
    {
      snprintf (why, whylen, "listing deployed kernels: %s", fe.msg);
      return -EIO;
    }
  for (size_t i = 0; i < n; i++)
    {
      char name[64] = "", format[8] = "raw", log[VERIFIER_LOG];
      uint64_t when = 0;
      struct ftl_object_info info;
      struct ossd_prog *prog = NULL;
      size_t len = 0, got = 0;
      uint8_t *img;

      r->next_oid = oids[i] + 1;
      if (ftl_get_attr (dev->ftl, OSSD_SYS_PID, oids[i], KATTR_PAGE, KATTR_NAME,
                        name, sizeof name - 1, &len, NULL) < 0)
        continue;
      name[len < sizeof name ? len : sizeof name - 1] = '\0';
      ftl_get_attr (dev->ftl, OSSD_SYS_PID, oids[i], KATTR_PAGE, KATTR_FORMAT,
                    format, sizeof format - 1, &len, NULL);
      ftl_get_attr (dev->ftl, OSSD_SYS_PID, oids[i], KATTR_PAGE, KATTR_TIME,
                    &when, sizeof when, &len, NULL);
      if (ftl_stat_object (dev->ftl, OSSD_SYS_PID, oids[i], &info, NULL) < 0
          || !(img = malloc (info.size ? info.size : 1)))
        continue;
      if (ftl_read (dev->ftl, OSSD_SYS_PID, oids[i], 0, img, info.size, &got, NULL) == 0
          && kernel_build (img, got, &prog, log, sizeof log) == 0)
        {
          struct device_kernel *k = kernel_new (name, oids[i], prog, format, when);
          if (k && r->n < MAX_KERNELS)
            r->k[r->n++] = k;
        }
      else
        device_log (dev, "deployed kernel '%s' (object %llu) no longer loads and verifies: %s",
                    name, (unsigned long long) oids[i], log);
      free (img);
    }
  return 0;
}

void
device_kernels_close (ossd_device_t *dev)
{
  struct ossd_kernel_registry *r = dev->kernels;

  if (!r)
    return;
  for (size_t i = 0; i < r->n; i++)
    device_kernel_put (r->k[i]);
  pthread_mutex_destroy (&r->lock);
  free (r);
  dev->kernels = NULL;
}

static void
fill_info (Ossd__KernelInfo *ki, const struct device_kernel *k)
{
  ossd__kernel_info__init (ki);
  ki->name = (char *) k->name;
  ki->hash = k->hash64;
  ki->insns = k->prog->insn_count;
  ki->format = (char *) k->format;
  ki->deployed_ns = k->deployed_ns;
}

void
device_kernel_deploy (ossd_device_t *dev, struct ossd_slot *s, uint64_t seq,
                      const Ossd__KernelDeploy *kd)
{
  struct ossd_kernel_registry *r = dev->kernels;
  Ossd__Response resp = OSSD__RESPONSE__INIT;
  Ossd__KernelInfo ki;
  char log[VERIFIER_LOG], reason[VERIFIER_LOG + 128];
  struct ossd_prog *prog = NULL;
  struct device_kernel *k, *old = NULL;
  const char *format;
  ftl_error fe = { "" };
  struct timespec ts;
  uint64_t oid, when;
  size_t idx = 0;
  int e;

  if (!kd->name || !valid_name (kd->name))
    {
      snprintf (reason, sizeof reason, "KERNEL DEPLOY: name '%s' must be 1-63 characters of [A-Za-z0-9_.-]",
                kd->name ? kd->name : "");
      return device_slot_respond_error (s, seq, OSSD__STATUS__ERR_INVALID, reason);
    }
  e = kernel_build (kd->image.data, kd->image.len, &prog, log, sizeof log);
  if (e < 0)
    {
      snprintf (reason, sizeof reason, "KERNEL DEPLOY '%s' rejected: %s", kd->name, log);
      device_event_post (dev, OSSD__EVENT_KIND__EV_KERNEL_LOG, s->index,
                         "kernel '%s' rejected: %.180s", kd->name, log);
      return device_slot_respond_error (s, seq, OSSD__STATUS__ERR_VERIFIER, reason);
    }
  format = kd->image.len >= 4 && memcmp (kd->image.data, "\177ELF", 4) == 0 ? "elf" : "raw";

  pthread_mutex_lock (&r->lock);
  for (size_t i = 0; i < r->n; i++)
    if (strcmp (r->k[i]->name, kd->name) == 0)
      {
        old = r->k[i];
        idx = i;
      }
  if (old && !kd->replace)
    {
      pthread_mutex_unlock (&r->lock);
      ossd_prog_free (prog);
      snprintf (reason, sizeof reason, "KERNEL DEPLOY: a kernel named '%s' is already deployed (ask to replace it)",
                kd->name);
      return device_slot_respond_error (s, seq, OSSD__STATUS__ERR_EXISTS, reason);
    }
  if (!old && r->n == MAX_KERNELS)
    {
      pthread_mutex_unlock (&r->lock);
      ossd_prog_free (prog);
      return device_slot_respond_error (s, seq, OSSD__STATUS__ERR_NO_SPACE,
                                        "KERNEL DEPLOY: the drive holds the maximum of 1024 kernels");
    }
  oid = r->next_oid++;
  clock_gettime (CLOCK_REALTIME, &ts);
  when = (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
  /* Persist first (one atomic batch), then publish. */
  struct ftl_op ops[] = {
    { .kind = FTL_OP_CREATE_OBJECT, .pid = OSSD_SYS_PID, .oid = oid },
    { .kind = FTL_OP_WRITE, .pid = OSSD_SYS_PID, .oid = oid, .off = 0,
      .len = kd->image.len, .data = kd->image.data },
    { .kind = FTL_OP_SET_ATTR, .pid = OSSD_SYS_PID, .oid = oid,
      .attr_page = KATTR_PAGE, .attr_number = KATTR_NAME,
      .len = strlen (kd->name), .data = kd->name },
    { .kind = FTL_OP_SET_ATTR, .pid = OSSD_SYS_PID, .oid = oid,
      .attr_page = KATTR_PAGE, .attr_number = KATTR_FORMAT,
      .len = strlen (format), .data = format },
    { .kind = FTL_OP_SET_ATTR, .pid = OSSD_SYS_PID, .oid = oid,
      .attr_page = KATTR_PAGE, .attr_number = KATTR_TIME,
      .len = sizeof when, .data = &when },
    { .kind = FTL_OP_REMOVE_OBJECT, .pid = OSSD_SYS_PID,
      .oid = old ? old->oid : 0 },
  };
  e = ftl_apply_batch (dev->ftl, ops, old ? 6 : 5, NULL, &fe);
  if (e == 0)
    e = ftl_flush (dev->ftl, &fe);
  if (e < 0 || !(k = kernel_new (kd->name, oid, prog, format, when)))
    {
      pthread_mutex_unlock (&r->lock);
      ossd_prog_free (prog);
      snprintf (reason, sizeof reason, "KERNEL DEPLOY '%s': storing it failed: %s",
                kd->name, e < 0 ? fe.msg : "out of memory");
      return device_slot_respond_error (s, seq, device_status_from_errno (e < 0 ? e : -ENOMEM), reason);
    }
  if (old)
    r->k[idx] = k;
  else
    r->k[r->n++] = k;
  pthread_mutex_unlock (&r->lock);
  device_kernel_put (old);
  device_event_post (dev, OSSD__EVENT_KIND__EV_KERNEL_LOG, s->index,
                     "kernel '%s' deployed (%u instructions, %s)", kd->name,
                     k->prog->insn_count, format);
  fill_info (&ki, k);
  ki.verifier_log = (char *) "accepted";
  resp.body_case = OSSD__RESPONSE__BODY_KERNEL;
  resp.kernel = &ki;
  device_slot_respond (s, seq, &resp, false);
}

void
device_kernel_list (ossd_device_t *dev, struct ossd_slot *s, uint64_t seq)
{
  struct ossd_kernel_registry *r = dev->kernels;
  Ossd__Response resp = OSSD__RESPONSE__INIT;
  Ossd__KernelListResult res = OSSD__KERNEL_LIST_RESULT__INIT;
  Ossd__KernelInfo *infos, **ptrs;

  pthread_mutex_lock (&r->lock);
  infos = calloc (r->n + 1, sizeof *infos);
  ptrs = calloc (r->n + 1, sizeof *ptrs);
  if (!infos || !ptrs)
    {
      pthread_mutex_unlock (&r->lock);
      free (infos);
      free (ptrs);
      return device_slot_respond_error (s, seq, OSSD__STATUS__ERR_IO, "KERNEL LIST: out of memory");
    }
  for (size_t i = 0; i < r->n; i++)
    {
      fill_info (&infos[i], r->k[i]);
      ptrs[i] = &infos[i];
    }
  res.n_kernels = r->n;
  res.kernels = ptrs;
  resp.body_case = OSSD__RESPONSE__BODY_KERNELS;
  resp.kernels = &res;
  /* Packed while the lock keeps the names alive. */
  device_slot_respond (s, seq, &resp, false);
  pthread_mutex_unlock (&r->lock);
  free (infos);
  free (ptrs);
}

void
device_kernel_remove (ossd_device_t *dev, struct ossd_slot *s, uint64_t seq,
                      const Ossd__KernelRemove *kr)
{
  struct ossd_kernel_registry *r = dev->kernels;
  struct device_kernel *k = NULL;
  char reason[200];
  ftl_error fe = { "" };
  int e = 0;

  pthread_mutex_lock (&r->lock);
  for (size_t i = 0; i < r->n; i++)
    if (kr->name && strcmp (r->k[i]->name, kr->name) == 0)
      {
        k = r->k[i];
        e = ftl_remove_object (dev->ftl, OSSD_SYS_PID, k->oid, &fe);
        if (e == 0)
          e = ftl_flush (dev->ftl, &fe);
        if (e == 0)
          r->k[i] = r->k[--r->n];
        break;
      }
  pthread_mutex_unlock (&r->lock);
  if (!k)
    {
      snprintf (reason, sizeof reason, "KERNEL REMOVE: no kernel named '%s' is deployed",
                kr->name ? kr->name : "");
      return device_slot_respond_error (s, seq, OSSD__STATUS__ERR_NOT_FOUND, reason);
    }
  if (e < 0)
    {
      snprintf (reason, sizeof reason, "KERNEL REMOVE '%s': %s", kr->name, fe.msg);
      return device_slot_respond_error (s, seq, device_status_from_errno (e), reason);
    }
  device_event_post (dev, OSSD__EVENT_KIND__EV_KERNEL_LOG, s->index,
                     "kernel '%s' removed", kr->name);
  device_kernel_put (k);
  Ossd__Response resp = OSSD__RESPONSE__INIT;
  device_slot_respond (s, seq, &resp, false);
}
