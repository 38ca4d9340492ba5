/* caps.c - libossd's capabilities: the master key of root tools, the
 * capabilities others were given, and attaching the right ones to each
 * request (docs/security.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_internal.h"

/* A device-wide capability lives this long and is renewed when less
 * than ADMIN_RENEW_NS remains, so a long-running ossdfs never sends an
 * expired one. */
#define ADMIN_TTL_NS   (3600ull * 1000000000ull)
#define ADMIN_RENEW_NS (600ull * 1000000000ull)
/* Capabilities a client keeps (pg_ossd adds one per scanned segment). */
#define MAX_CAPS 256

void
ossd_default_key_file (char *buf, size_t len)
{
  const char *k = getenv ("OSSD_KEY_FILE");
  const char *rd = getenv ("OSSD_RUNDIR");

  if (k && *k)
    snprintf (buf, len, "%s", k);
  else
    snprintf (buf, len, "%s/ossd.key", rd && *rd ? rd : "/run/ossd");
}

int
client_caps_init (ossd_t *o, ossd_error *err)
{
  char why[400];
  int r;

  if (o->opts.key_file && o->opts.key_file[0])
    {
      r = ossd_key_load (o->opts.key_file, o->master_key, why, sizeof why);
      if (r < 0)
        {
          client_set_error (err, OSSD__STATUS__ERR_PERMISSION, -r, "%s", why);
          return r;
        }
      o->have_key = true;
    }
  else if (!o->opts.key_file && o->t->has_master_key)
    {
      memcpy (o->master_key, o->t->master_key, OSSD_KEY_BYTES);
      o->have_key = true;
    }
  return 0;
}

void
client_caps_free (ossd_t *o)
{
  memset (o->master_key, 0, sizeof o->master_key);
  free (o->caps);
  o->caps = NULL;
  pthread_mutex_destroy (&o->cap_lock);
}

bool
ossd_has_master_key (ossd_t *o)
{
  return o->have_key;
}

int
ossd_mint_capability (ossd_t *o, struct ossd_cap *cap, ossd_error *err)
{
  if (o->unreachable)
    {
      client_set_error (err, OSSD_STATUS_TRANSPORT, ENOTCONN,
                        "the drive at %s could not be reached: %s", o->uri,
                        o->unreachable);
      return -ENOTCONN;
    }
  if (!o->have_key)
    {
      client_set_error (err, OSSD__STATUS__ERR_PERMISSION, EPERM,
                        "%s: this connection does not hold the drive's master key",
                        o->uri);
      return -EPERM;
    }
  ossd_cap_sign (o->master_key, cap);
  return 0;
}

int
ossd_add_capability (ossd_t *o, const struct ossd_cap *cap, ossd_error *err)
{
  uint64_t now = ossd_realtime_ns ();
  size_t i, k;

  if (cap->expiry_ns <= now)
    {
      client_set_error (err, OSSD__STATUS__ERR_PERMISSION, EACCES,
                        "capability for (pid %llu, oid %llu) has expired",
                        (unsigned long long) cap->pid,
                        (unsigned long long) cap->oid);
      return -EACCES;
    }
  pthread_mutex_lock (&o->cap_lock);
  if (!o->caps)
    o->caps = calloc (MAX_CAPS, sizeof *o->caps);
  if (!o->caps)
    {
      pthread_mutex_unlock (&o->cap_lock);
      client_set_error (err, OSSD_STATUS_TRANSPORT, ENOMEM, "out of memory");
      return -ENOMEM;
    }
  /* Drop the expired ones and the one this replaces. */
  for (i = k = 0; i < o->n_caps; i++)
    {
      const struct ossd_cap *c = &o->caps[i];
      if (c->expiry_ns <= now
          || (c->pid == cap->pid && c->oid == cap->oid
              && c->rights == cap->rights))
        continue;
      o->caps[k++] = *c;
    }
  o->n_caps = k;
  if (o->n_caps == MAX_CAPS)
    {
      /* the oldest goes */
      memmove (o->caps, o->caps + 1, (MAX_CAPS - 1) * sizeof *o->caps);
      o->n_caps--;
    }
  o->caps[o->n_caps] = *cap;
  o->caps[o->n_caps].pad = 0;
  o->n_caps++;
  pthread_mutex_unlock (&o->cap_lock);
  return 0;
}

int
ossd_add_capability_text (ossd_t *o, const char *text, ossd_error *err)
{
  struct ossd_cap cap;

  if (ossd_cap_parse (text, &cap) < 0)
    {
      client_set_error (err, OSSD__STATUS__ERR_INVALID, EINVAL,
                        "not a capability: \"%.60s\"", text);
      return -EINVAL;
    }
  return ossd_add_capability (o, &cap, err);
}

void
client_caps_done (struct client_cap_buf *b)
{
  free (b->hcap);
  free (b->hpb);
  free (b->hmore);
  b->hcap = NULL;
  b->hpb = NULL;
  b->hmore = NULL;
}

/* req with caps[0..n) attached, in b. */
static const Ossd__Request *
attach (const Ossd__Request *req, struct client_cap_buf *b,
        const struct ossd_cap *caps, size_t n)
{
  struct ossd_cap *cap = b->cap;
  Ossd__Capability *pb = b->pb, **more = b->more;

  if (n > CLIENT_CAPS_INLINE)
    {
      b->hcap = malloc (n * sizeof *cap);
      b->hpb = malloc (n * sizeof *pb);
      b->hmore = malloc (n * sizeof *more);
      if (!b->hcap || !b->hpb || !b->hmore)
        {
          client_caps_done (b);
          return req;          /* the drive will say what is missing */
        }
      cap = b->hcap;
      pb = b->hpb;
      more = b->hmore;
    }
  b->req = *req;
  for (size_t i = 0; i < n; i++)
    {
      cap[i] = caps[i];
      ossd_cap_to_proto (&cap[i], &pb[i]);
      more[i] = &pb[i];
    }
  b->req.cap = &pb[0];
  b->req.n_more_caps = n - 1;
  b->req.more_caps = n > 1 ? &more[1] : NULL;
  return &b->req;
}

const Ossd__Request *
client_caps_attach (ossd_t *o, const Ossd__Request *req,
                    struct client_cap_buf *b)
{
  struct ossd_cap_need nbuf[CLIENT_CAPS_INLINE], *needs = nbuf;
  struct ossd_cap found[CLIENT_CAPS_INLINE], *fnd = found;
  const Ossd__Request *out = req;
  size_t nn, nf = 0;
  uint64_t now;

  b->hcap = NULL;
  b->hpb = NULL;
  b->hmore = NULL;
  if (req->cap || req->body_case == OSSD__REQUEST__BODY_CLAIM
      || req->body_case == OSSD__REQUEST__BODY_RELEASE)
    return req;                /* the caller chose, or an open command */
  if (o->have_key)
    {
      struct ossd_cap admin;
      now = ossd_realtime_ns ();
      pthread_mutex_lock (&o->cap_lock);
      if (o->admin_cap.expiry_ns < now + ADMIN_RENEW_NS)
        {
          memset (&o->admin_cap, 0, sizeof o->admin_cap);
          o->admin_cap.rights = OSSD_RIGHTS_ALL;
          o->admin_cap.expiry_ns = now + ADMIN_TTL_NS;
          ossd_cap_sign (o->master_key, &o->admin_cap);
        }
      admin = o->admin_cap;
      pthread_mutex_unlock (&o->cap_lock);
      return attach (req, b, &admin, 1);
    }
  if (o->n_caps == 0)
    return req;
  nn = ossd_request_needs (req, nbuf, CLIENT_CAPS_INLINE);
  if (nn == 0)
    return req;
  if (nn > CLIENT_CAPS_INLINE)
    {
      needs = malloc (nn * sizeof *needs);
      fnd = malloc (nn * sizeof *fnd);
      if (!needs || !fnd)
        goto out;
      ossd_request_needs (req, needs, nn);
    }
  now = ossd_realtime_ns ();
  pthread_mutex_lock (&o->cap_lock);
  for (size_t i = 0; i < nn; i++)
    {
      const struct ossd_cap *best = NULL;
      bool dup = false;

      /* The newest matching one: an object's capability is renewed by
       * adding it again. */
      for (size_t j = o->n_caps; j-- > 0;)
        if (o->caps[j].expiry_ns > now && ossd_cap_covers (&o->caps[j], &needs[i]))
          {
            best = &o->caps[j];
            break;
          }
      if (!best)
        continue;
      for (size_t k = 0; k < nf && !dup; k++)
        dup = memcmp (&fnd[k], best, sizeof *best) == 0;
      if (!dup)
        fnd[nf++] = *best;
    }
  pthread_mutex_unlock (&o->cap_lock);
  if (nf)
    out = attach (req, b, fnd, nf);
out:
  if (needs != nbuf)
    free (needs);
  if (fnd != found)
    free (fnd);
  return out;
}
