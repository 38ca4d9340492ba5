/* common.c - connecting to the drive and reporting errors for ossdctl. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* Every argument must be one of the command's flags (NULL-terminated
 * list, may be empty); seen[i] tells whether flags[i] was given.  Anything
 * else is a usage error (exit code 2), never silently ignored. */
int
ctl_flags (const char *cmd, int argc, char **argv,
           const char *const *flags, bool *seen)
{
  for (int i = 0; i < argc; i++)
    {
      size_t k;
      for (k = 0; flags[k]; k++)
        if (strcmp (argv[i], flags[k]) == 0)
          break;
      if (!flags[k])
        {
          fprintf (stderr, "ossdctl %s: unexpected argument '%s'", cmd, argv[i]);
          if (flags[0])
            {
              fprintf (stderr, " (it takes");
              for (k = 0; flags[k]; k++)
                fprintf (stderr, " %s", flags[k]);
              fprintf (stderr, ")");
            }
          else
            fprintf (stderr, " (it takes none)");
          fprintf (stderr, "\n");
          return -1;
        }
      if (seen)
        seen[k] = true;
    }
  return 0;
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
  char key[4096];

  /* The key file, when we may read it (root); otherwise we go without and
   * the drive refuses what needs a capability, saying so. */
  if (c->key_file)
    o.key_file = c->key_file;
  else if (strncmp (c->device, "inproc:", 7) != 0)
    {
      ossd_default_key_file (key, sizeof key);
      o.key_file = access (key, R_OK) == 0 ? key : "";
    }
  if (ossd_connect (c->device, &o, &h, &err) < 0)
    {
      fprintf (stderr, "ossdctl: cannot reach the drive at %s: %s\n",
               c->device, err.msg);
      if (err.status == OSSD_STATUS_TRANSPORT)
        fprintf (stderr, "ossdctl: hint: start one with 'ossdctl device start --image FILE', or pass --device URI\n");
      return NULL;
    }
  for (int i = 0; i < c->n_caps; i++)
    if (ossd_add_capability_text (h, c->caps[i], &err) < 0)
      {
        fprintf (stderr, "ossdctl: --cap: %s\n", err.msg);
        ossd_disconnect (h);
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
