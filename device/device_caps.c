/* device_caps.c - the drive's side of NASD-style capabilities: the master
 * key (loaded or created at open) and the check every command passes
 * before the dispatcher runs it (docs/security.md).
 *
 * A request lists what it needs (ossd_request_needs: rights on objects,
 * partitions or the drive); each need must be covered by one of the
 * capabilities it carries (Request.cap, Request.more_caps) whose MAC is
 * right, which has not expired, and, for a capability naming one object,
 * whose version equals the object's capability version attribute.  A
 * refusal names the command, the object and what failed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_internal.h"

int
device_caps_open (ossd_device_t *dev, const char *key_file, char *why,
                  size_t whylen)
{
  char *path = NULL;
  const char *kf = key_file;
  char kwhy[300];
  int r;

  if (!kf && dev->image[0] == '\0')
    {
      /* A RAM drive without a key file: only this process may mint. */
      if (ossd_key_random (dev->master_key) < 0)
        {
          snprintf (why, whylen, "no random bytes for the drive's master key");
          return -EIO;
        }
      return 0;
    }
  if (!kf)
    {
      if (asprintf (&path, "%s.key", dev->image) < 0)
        return -ENOMEM;
      kf = path;
    }
  r = ossd_key_load (kf, dev->master_key, kwhy, sizeof kwhy);
  if (r == -ENOENT)
    {
      r = ossd_key_create (kf, dev->master_key, kwhy, sizeof kwhy);
      if (r == 0)
        device_log (dev, "created the drive's master key %s (mode 0600)", kf);
    }
  if (r < 0)
    snprintf (why, whylen, "drive master key: %s", kwhy);
  free (path);
  return r;
}

void
ossd_device_master_key (ossd_device_t *dev, uint8_t out[32])
{
  memcpy (out, dev->master_key, OSSD_KEY_BYTES);
}

/* The object's capability version (absent: 0). */
static uint64_t
object_cap_version (ossd_device_t *dev, uint64_t pid, uint64_t oid)
{
  uint8_t b[8] = { 0 };
  size_t len = 0;
  uint64_t v = 0;

  if (ftl_get_attr (dev->ftl, pid, oid, OSSD_CAP_ATTR_PAGE,
                    OSSD_CAP_ATTR_VERSION, b, sizeof b, &len, NULL) < 0)
    return 0;
  for (int i = 0; i < 8; i++)
    v |= (uint64_t) b[i] << (8 * i);
  return v;
}

/* A presented capability, decoded and judged once per request. */
struct presented
{
  struct ossd_cap cap;
  const char *bad;             /* NULL: MAC right and not expired */
};

static void
judge (ossd_device_t *dev, struct ossd_slot *slot, const Ossd__Capability *pb,
       uint64_t now_ns, bool first, struct presented *p)
{
  p->bad = NULL;
  if (ossd_cap_from_proto (pb, &p->cap) < 0)
    {
      p->bad = "its MAC is not 32 bytes";
      return;
    }
  if (first && slot->last_cap_ok
      && memcmp (&slot->last_cap, &p->cap, sizeof p->cap) == 0)
    ;                          /* the same capability as last time */
  else
    {
      atomic_fetch_add (&dev->ctr.cap_mac_verified, 1);
      if (!ossd_cap_mac_ok (dev->master_key, &p->cap))
        {
          p->bad = "its MAC does not verify (forged, altered, or minted with another drive's key)";
          return;
        }
      if (first)
        {
          slot->last_cap = p->cap;
          slot->last_cap_ok = true;
        }
    }
  if (p->cap.expiry_ns <= now_ns)
    p->bad = "it has expired";
}

static void
describe_need (const struct ossd_cap_need *n, char *buf, size_t len)
{
  char r[96];

  ossd_rights_string (n->rights, r, sizeof r);
  if (n->device)
    snprintf (buf, len, "%s on the drive", r);
  else if (n->any_partition)
    snprintf (buf, len, "%s on a partition", r);
  else if (n->oid == 0)
    snprintf (buf, len, "%s on partition %" PRIu64, r, n->pid);
  else
    snprintf (buf, len, "%s on (pid %" PRIu64 ", oid %" PRIu64 ")", r,
              n->pid, n->oid);
}

int
device_caps_check (ossd_device_t *dev, struct ossd_slot *slot,
                   const Ossd__Request *req, char *why, size_t whylen)
{
  struct ossd_cap_need nbuf[8], *needs = nbuf;
  struct presented pbuf[8], *pres = pbuf;
  size_t nn, np = (req->cap ? 1 : 0) + req->n_more_caps, i, j;
  const char *cmd = ossd_request_name (req);
  uint64_t now_ns;
  char what[200];
  int r = 0;

  nn = ossd_request_needs (req, nbuf, 8);
  if (nn == 0)
    return 0;
  atomic_fetch_add (&dev->ctr.cap_checks, 1);
  if (np == 0)
    {
      describe_need (&nbuf[0], what, sizeof what);
      snprintf (why, whylen, "%s: permission denied: no capability (it needs %s)",
                cmd, what);
      atomic_fetch_add (&dev->ctr.cap_refusals, 1);
      return -EACCES;
    }
  if (nn > 8)
    {
      needs = malloc (nn * sizeof *needs);
      if (!needs)
        return -ENOMEM;
      ossd_request_needs (req, needs, nn);
    }
  if (np > 8)
    {
      pres = malloc (np * sizeof *pres);
      if (!pres)
        {
          r = -ENOMEM;
          goto out;
        }
    }
  now_ns = ossd_realtime_ns ();
  j = 0;
  if (req->cap)
    judge (dev, slot, req->cap, now_ns, true, &pres[j++]);
  for (i = 0; i < req->n_more_caps; i++)
    judge (dev, slot, req->more_caps[i], now_ns, false, &pres[j++]);

  for (i = 0; i < nn; i++)
    {
      const struct ossd_cap_need *n = &needs[i];
      const struct presented *closest = NULL;
      uint64_t objver = 0;
      bool have_objver = false, granted = false;
      const char *failure = NULL;

      for (j = 0; j < np && !granted; j++)
        {
          const struct presented *p = &pres[j];
          bool scope = p->cap.pid == 0 || n->any_partition
            || (!n->device && p->cap.pid == n->pid
                && (p->cap.oid == 0 || p->cap.oid == n->oid));

          if (!scope)
            continue;
          closest = p;
          if (p->bad)
            {
              failure = p->bad;
              continue;
            }
          if (!ossd_cap_covers (&p->cap, n))
            {
              failure = NULL;
              continue;
            }
          if (p->cap.pid != 0 && p->cap.oid != 0)
            {
              if (!have_objver)
                {
                  objver = object_cap_version (dev, n->pid, n->oid);
                  have_objver = true;
                }
              if (objver != p->cap.version)
                {
                  failure = "revoked";
                  continue;
                }
            }
          granted = true;
        }
      if (granted)
        continue;
      describe_need (n, what, sizeof what);
      if (!closest)
        snprintf (why, whylen, "%s: permission denied: no capability for it (it needs %s)",
                  cmd, what);
      else if (failure && strcmp (failure, "revoked") == 0)
        snprintf (why, whylen, "%s: permission denied: the capability for (pid %" PRIu64 ", oid %" PRIu64 ") has version %" PRIu64 " but the object's is %" PRIu64 " (revoked)",
                  cmd, n->pid, n->oid, closest->cap.version, objver);
      else if (failure)
        snprintf (why, whylen, "%s: permission denied: the capability for %s is refused: %s",
                  cmd, what, failure);
      else
        {
          char has[96];
          snprintf (why, whylen, "%s: permission denied: the capability grants %s, it needs %s",
                    cmd, ossd_rights_string (closest->cap.rights, has, sizeof has),
                    what);
        }
      atomic_fetch_add (&dev->ctr.cap_refusals, 1);
      r = -EACCES;
      break;
    }
out:
  if (needs != nbuf)
    free (needs);
  if (pres != pbuf)
    free (pres);
  return r;
}
