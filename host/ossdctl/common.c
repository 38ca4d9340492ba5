/* common.c - connecting to the drive and reporting errors for ossdctl. */
#include <stdio.h>
#include <stdlib.h>

#include "ossdctl.h"

const char *
ctl_rundir (void)
{
  const char *d = getenv ("OSSD_RUNDIR");
  return d && *d ? d : "/run/ossd";
}

const char *
ctl_default_device (void)
{
  static char uri[512];
  const char *d = getenv ("OSSD_DEVICE");

  if (d && *d)
    return d;
  snprintf (uri, sizeof uri, "nbd+unix:///?socket=%s/ossd.sock", ctl_rundir ());
  return uri;
}

int
ctl_fail (const char *what, const ossd_error *err)
{
  fprintf (stderr, "ossdctl: %s: %s\n", what, err->msg);
  return 1;
}

ossd_t *
ctl_connect (struct ctl *c)
{
  struct ossd_connect_opts o = { .client_name = "ossdctl", .max_slots = 4,
                                 .timeout_ms = c->timeout_ms };
  ossd_error err = { 0 };
  ossd_t *h = NULL;

  if (ossd_connect (c->device, &o, &h, &err) < 0)
    {
      fprintf (stderr, "ossdctl: cannot reach the drive at %s: %s\n",
               c->device, err.msg);
      fprintf (stderr, "ossdctl: hint: start one with 'ossdctl device start --image FILE', or pass --device URI\n");
      return NULL;
    }
  return h;
}

void
ctl_allow_long_call (struct ctl *c)
{
  if (!c->timeout_given)
    c->timeout_ms = 600000;
}
