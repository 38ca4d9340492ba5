/* sofs_main.c - `ftl-sim --workload sofs`: runs the SOFS experiment
 * (sofs.h) on each case of --sofs-case (synthetic applications, "msr" for
 * the --trace file, "msr:FILE" for another), one CSV (--sofs-csv, else stdout) and with --json
 * a JSON line per layout on stdout. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sofs.h"

int
sofs_main (const struct sim_opts *o)
{
  const char *cases = o->sofs_case ? o->sofs_case : "startup";
  FILE *csv = stdout;
  if (o->sofs_csv && !(csv = fopen (o->sofs_csv, "w")))
    {
      int e = errno;
      fprintf (stderr, "ftl-sim: cannot write %s: %s\n", o->sofs_csv, strerror (e));
      return -e;
    }
  char *list = strdup (cases), *save = NULL;
  int r = list ? 0 : -ENOMEM;
  bool header = true;
  for (char *c = list ? strtok_r (list, ",", &save) : NULL; r == 0 && c;
       c = strtok_r (NULL, ",", &save))
    {
      struct sofs_trace t;
      if (strcmp (c, "msr") == 0 || strncmp (c, "msr:", 4) == 0)
        {
          const char *path = c[3] == ':' ? c + 4 : o->trace;
          if (!path || !*path)
            {
              fprintf (stderr, "ftl-sim: SOFS case msr needs --trace FILE "
                       "(or msr:FILE)\n");
              r = -EINVAL;
              break;
            }
          r = sofs_trace_load_msr (&t, path, o->sofs_max_obj ? o->sofs_max_obj
                                   : 256ull << 20, o->sofs_max_reads);
        }
      else
        r = sofs_app_build (&t, c, o->sofs_scale, o->seed);
      if (r < 0)
        break;
      if (!o->quiet)
        fprintf (stderr, "ftl-sim: SOFS case %s: %u objects, %zu requests\n",
                 t.name, t.nobj, t.n);
      r = sofs_run (o, &t, csv, header, o->json ? stdout : NULL);
      header = false;
      sofs_trace_free (&t);
    }
  free (list);
  if (csv != stdout && fclose (csv) != 0 && r == 0)
    {
      fprintf (stderr, "ftl-sim: writing %s failed\n", o->sofs_csv);
      r = -EIO;
    }
  return r;
}
