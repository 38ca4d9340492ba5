/* ftl_dftl.c - demand-cached mapping (placeholder until implemented). */
#include "ftl_internal.h"

int dftl_init (struct ftl *f) { return 0; }
void dftl_fini (struct ftl *f) { }
void dftl_lookup (struct ftl *f, struct ftl_object *o, uint32_t lpn,
                  bool for_write) { }
void dftl_forget_object (struct ftl *f, struct ftl_object *o) { }
void dftl_flush_dirty (struct ftl *f) { }
int
dftl_relocate_map_page (struct ftl *f, uint32_t slot, uint32_t chunk,
                        uint64_t old_page)
{
  return -EIO;
}
