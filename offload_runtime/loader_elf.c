/* loader_elf.c - loads ELF relocatable objects built with
 * `clang -O2 -target bpf -c` (libelf).  The kernel is the global function
 * in section "ossd/kernel", or else the single global function of the only
 * non-empty executable section.  .rodata*, .data* and .bss* sections are
 * concatenated into the program's read-only data; R_BPF_64_64 relocations
 * on lddw become rodata pointers (src_reg = OSSD_PSEUDO_RODATA, imm =
 * offset).  BTF is ignored.  Anything else is rejected with the section
 * and offset. */
#include <gelf.h>
#include <stdio.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "prog_internal.h"

#ifndef EM_BPF
#define EM_BPF 247
#endif
#define OSSD_R_BPF_64_64 1
#define OSSD_R_BPF_64_32 10
#define OSSD_MAX_SECTIONS 4096

struct elf_load
{
  Elf *elf;
  size_t shstrndx;
  Elf_Scn *symtab;
  size_t strtab_ndx;
  size_t kernel_ndx;
  uint64_t kernel_off, kernel_len;      /* bytes within the section */
  const char *kernel_name;
  int64_t data_base[OSSD_MAX_SECTIONS]; /* rodata offset of a data section, -1 = none */
  uint8_t *rodata;
  size_t rodata_len;
  struct ossd_insn *insns;
  uint32_t insn_count;
  char *err;
  size_t errlen;
};

static const char *
sec_name (struct elf_load *L, size_t ndx)
{
  GElf_Shdr sh;
  Elf_Scn *scn = elf_getscn (L->elf, ndx);
  const char *n;
  if (!scn || !gelf_getshdr (scn, &sh))
    return "?";
  n = elf_strptr (L->elf, L->shstrndx, sh.sh_name);
  return n ? n : "?";
}

static bool
is_data_section_name (const char *n)
{
  return strncmp (n, ".rodata", 7) == 0 || strncmp (n, ".data", 5) == 0
    || strncmp (n, ".bss", 4) == 0;
}

/* Collects data sections into L->rodata. */
static int
collect_data (struct elf_load *L)
{
  Elf_Scn *scn = NULL;
  while ((scn = elf_nextscn (L->elf, scn)))
    {
      GElf_Shdr sh;
      size_t ndx = elf_ndxscn (scn);
      const char *name;
      if (!gelf_getshdr (scn, &sh))
        return ossd_rt_err (L->err, L->errlen, -EINVAL,
                            "elf: section %zu: unreadable header", ndx);
      name = sec_name (L, ndx);
      if (!(sh.sh_flags & SHF_ALLOC) || (sh.sh_flags & SHF_EXECINSTR)
          || !is_data_section_name (name))
        continue;
      uint64_t align = sh.sh_addralign ? sh.sh_addralign : 1;
      if (align > 4096 || sh.sh_size > OSSD_MAX_SECTIONS * 1024u)
        return ossd_rt_err (L->err, L->errlen, -EINVAL,
                            "elf: section %s: size %llu or alignment %llu too large",
                            name, (unsigned long long) sh.sh_size,
                            (unsigned long long) align);
      size_t base = (L->rodata_len + align - 1) / align * align;
      size_t newlen = base + sh.sh_size;
      if (newlen > UINT32_MAX / 2)
        return ossd_rt_err (L->err, L->errlen, -E2BIG, "elf: read-only data too large");
      uint8_t *nr = realloc (L->rodata, newlen ? newlen : 1);
      if (!nr)
        return ossd_rt_err (L->err, L->errlen, -ENOMEM, "out of memory");
      L->rodata = nr;
      memset (nr + L->rodata_len, 0, newlen - L->rodata_len);
      if (sh.sh_type != SHT_NOBITS && sh.sh_size)
        {
          Elf_Data *d = elf_getdata (scn, NULL);
          if (!d || d->d_size != sh.sh_size || !d->d_buf)
            return ossd_rt_err (L->err, L->errlen, -EINVAL,
                                "elf: section %s: data unreadable", name);
          memcpy (nr + base, d->d_buf, sh.sh_size);
        }
      L->data_base[ndx] = (int64_t) base;
      L->rodata_len = newlen;
    }
  return 0;
}

/* Finds the kernel section and its global function. */
static int
find_kernel (struct elf_load *L)
{
  Elf_Scn *scn = NULL;
  size_t named = 0, exec_nonempty = 0, exec_ndx = 0;
  while ((scn = elf_nextscn (L->elf, scn)))
    {
      GElf_Shdr sh;
      size_t ndx = elf_ndxscn (scn);
      if (!gelf_getshdr (scn, &sh))
        continue;
      if (strcmp (sec_name (L, ndx), "ossd/kernel") == 0)
        named = ndx;
      if ((sh.sh_flags & SHF_EXECINSTR) && sh.sh_size > 0)
        {
          exec_nonempty++;
          exec_ndx = ndx;
        }
    }
  if (named)
    L->kernel_ndx = named;
  else if (exec_nonempty == 1)
    L->kernel_ndx = exec_ndx;
  else
    return ossd_rt_err (L->err, L->errlen, -EINVAL,
                        exec_nonempty ? "elf: no section \"ossd/kernel\" and %zu executable sections"
                        : "elf: no executable section (%zu)", exec_nonempty);
  GElf_Shdr ksh, ssh;
  scn = elf_getscn (L->elf, L->kernel_ndx);
  gelf_getshdr (scn, &ksh);
  if (ksh.sh_type != SHT_PROGBITS || !(ksh.sh_flags & SHF_EXECINSTR))
    return ossd_rt_err (L->err, L->errlen, -EINVAL,
                        "elf: section %s is not executable code",
                        sec_name (L, L->kernel_ndx));

  /* the one global function in that section */
  if (!L->symtab)
    return ossd_rt_err (L->err, L->errlen, -EINVAL, "elf: no symbol table");
  gelf_getshdr (L->symtab, &ssh);
  Elf_Data *sd = elf_getdata (L->symtab, NULL);
  size_t nsym = ssh.sh_entsize ? ssh.sh_size / ssh.sh_entsize : 0;
  int found = 0;
  for (size_t i = 0; sd && i < nsym; i++)
    {
      GElf_Sym sym;
      if (!gelf_getsym (sd, (int) i, &sym))
        continue;
      if (sym.st_shndx != L->kernel_ndx || GELF_ST_TYPE (sym.st_info) != STT_FUNC
          || GELF_ST_BIND (sym.st_info) != STB_GLOBAL)
        continue;
      found++;
      L->kernel_off = sym.st_value;
      L->kernel_len = sym.st_size ? sym.st_size : ksh.sh_size - sym.st_value;
      L->kernel_name = elf_strptr (L->elf, ssh.sh_link, sym.st_name);
    }
  if (found != 1)
    return ossd_rt_err (L->err, L->errlen, -EINVAL,
                        "elf: section %s: %d global functions, need exactly one",
                        sec_name (L, L->kernel_ndx), found);
  if (L->kernel_off % 8 || L->kernel_len % 8 || L->kernel_len == 0
      || L->kernel_off > ksh.sh_size || L->kernel_len > ksh.sh_size - L->kernel_off)
    return ossd_rt_err (L->err, L->errlen, -EINVAL,
                        "elf: section %s: function at offset %llu size %llu is malformed",
                        sec_name (L, L->kernel_ndx),
                        (unsigned long long) L->kernel_off,
                        (unsigned long long) L->kernel_len);
  if (L->kernel_len / 8 > OSSD_MAX_INSNS)
    return ossd_rt_err (L->err, L->errlen, -E2BIG,
                        "elf: kernel has %llu instructions, limit is %u",
                        (unsigned long long) (L->kernel_len / 8),
                        (unsigned) OSSD_MAX_INSNS);
  Elf_Data *kd = elf_getdata (scn, NULL);
  if (!kd || kd->d_size != ksh.sh_size || !kd->d_buf)
    return ossd_rt_err (L->err, L->errlen, -EINVAL, "elf: section %s: data unreadable",
                        sec_name (L, L->kernel_ndx));
  L->insn_count = (uint32_t) (L->kernel_len / 8);
  L->insns = malloc (L->kernel_len);
  if (!L->insns)
    return ossd_rt_err (L->err, L->errlen, -ENOMEM, "out of memory");
  memcpy (L->insns, (uint8_t *) kd->d_buf + L->kernel_off, L->kernel_len);
  return 0;
}

static int
apply_one_rel (struct elf_load *L, const char *rsec, GElf_Rel *r, Elf_Data *sd,
               size_t nsym)
{
  uint64_t off = r->r_offset;
  size_t symi = GELF_R_SYM (r->r_info);
  unsigned type = (unsigned) GELF_R_TYPE (r->r_info);
  GElf_Sym sym;
  const char *sname;
  GElf_Shdr ssh;

  gelf_getshdr (L->symtab, &ssh);
  if (symi >= nsym || !gelf_getsym (sd, (int) symi, &sym))
    return ossd_rt_err (L->err, L->errlen, -EINVAL,
                        "elf: section %s offset %llu: bad symbol index %zu",
                        rsec, (unsigned long long) off, symi);
  sname = elf_strptr (L->elf, ssh.sh_link, sym.st_name);
  if (!sname || !*sname)
    sname = sym.st_shndx < OSSD_MAX_SECTIONS ? sec_name (L, sym.st_shndx) : "?";
  if (off < L->kernel_off || off >= L->kernel_off + L->kernel_len)
    return 0;                   /* belongs to another function: unused */
  if ((off - L->kernel_off) % 8)
    return ossd_rt_err (L->err, L->errlen, -EINVAL,
                        "elf: section %s offset %llu: relocation not on an instruction",
                        rsec, (unsigned long long) off);
  uint32_t idx = (uint32_t) ((off - L->kernel_off) / 8);
  struct ossd_insn *in = &L->insns[idx];
  if (type == OSSD_R_BPF_64_32)
    return ossd_rt_err (L->err, L->errlen, -EINVAL,
                        "elf: section %s offset %llu: call to function '%s' "
                        "(bpf-to-bpf calls are not supported; make it static inline)",
                        rsec, (unsigned long long) off, sname);
  if (type != OSSD_R_BPF_64_64)
    return ossd_rt_err (L->err, L->errlen, -EINVAL,
                        "elf: section %s offset %llu: unsupported relocation type %u",
                        rsec, (unsigned long long) off, type);
  if (in->code != (OSSD_BPF_LD | OSSD_BPF_DW | OSSD_BPF_IMM) || idx + 1 >= L->insn_count)
    return ossd_rt_err (L->err, L->errlen, -EINVAL,
                        "elf: section %s offset %llu: R_BPF_64_64 not on a lddw",
                        rsec, (unsigned long long) off);
  if (sym.st_shndx == SHN_UNDEF)
    return ossd_rt_err (L->err, L->errlen, -EINVAL,
                        "elf: section %s offset %llu: undefined symbol '%s'",
                        rsec, (unsigned long long) off, sname);
  if (sym.st_shndx >= OSSD_MAX_SECTIONS || L->data_base[sym.st_shndx] < 0)
    return ossd_rt_err (L->err, L->errlen, -EINVAL,
                        "elf: section %s offset %llu: symbol '%s' is not in a data section",
                        rsec, (unsigned long long) off, sname);
  int64_t target = L->data_base[sym.st_shndx] + (int64_t) sym.st_value
    + (int64_t) in->imm;
  if (target < 0 || (uint64_t) target > L->rodata_len)
    return ossd_rt_err (L->err, L->errlen, -EINVAL,
                        "elf: section %s offset %llu: reference to '%s'+%d outside its data",
                        rsec, (unsigned long long) off, sname, in->imm);
  in->src_reg = OSSD_PSEUDO_RODATA;
  in->imm = (int32_t) target;
  in[1].imm = 0;
  return 0;
}

static int
apply_relocations (struct elf_load *L)
{
  Elf_Scn *scn = NULL;
  GElf_Shdr ssh;
  gelf_getshdr (L->symtab, &ssh);
  Elf_Data *sd = elf_getdata (L->symtab, NULL);
  size_t nsym = ssh.sh_entsize ? ssh.sh_size / ssh.sh_entsize : 0;
  while ((scn = elf_nextscn (L->elf, scn)))
    {
      GElf_Shdr sh;
      size_t ndx = elf_ndxscn (scn);
      if (!gelf_getshdr (scn, &sh))
        continue;
      if (sh.sh_type == SHT_RELA && sh.sh_info == L->kernel_ndx)
        return ossd_rt_err (L->err, L->errlen, -EINVAL,
                            "elf: section %s: RELA relocations not supported",
                            sec_name (L, ndx));
      if (sh.sh_type != SHT_REL)
        continue;
      if (sh.sh_info < OSSD_MAX_SECTIONS && L->data_base[sh.sh_info] >= 0)
        return ossd_rt_err (L->err, L->errlen, -EINVAL,
                            "elf: section %s: relocations inside data section %s "
                            "(pointers in read-only data) are not supported",
                            sec_name (L, ndx), sec_name (L, sh.sh_info));
      if (sh.sh_info != L->kernel_ndx)
        continue;               /* BTF, other code: ignored */
      Elf_Data *rd = elf_getdata (scn, NULL);
      size_t n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
      for (size_t i = 0; rd && i < n; i++)
        {
          GElf_Rel r;
          int rc;
          if (!gelf_getrel (rd, (int) i, &r))
            return ossd_rt_err (L->err, L->errlen, -EINVAL,
                                "elf: section %s entry %zu unreadable",
                                sec_name (L, ndx), i);
          if ((rc = apply_one_rel (L, sec_name (L, ndx), &r, sd, nsym)) < 0)
            return rc;
        }
    }
  return 0;
}

int
ossd_prog_load_elf (const void *buf, size_t len, struct ossd_prog **out,
                    char *err, size_t errlen)
{
  struct elf_load L;
  GElf_Ehdr eh;
  char *copy;
  int rc;

  *out = NULL;
  memset (&L, 0, sizeof L);
  L.err = err;
  L.errlen = errlen;
  for (size_t i = 0; i < OSSD_MAX_SECTIONS; i++)
    L.data_base[i] = -1;
  if (elf_version (EV_CURRENT) == EV_NONE)
    return ossd_rt_err (err, errlen, -EINVAL, "elf: libelf unavailable");
  copy = malloc (len ? len : 1);
  if (!copy)
    return ossd_rt_err (err, errlen, -ENOMEM, "out of memory");
  memcpy (copy, buf, len);
  L.elf = elf_memory (copy, len);
  if (!L.elf || elf_kind (L.elf) != ELF_K_ELF || !gelf_getehdr (L.elf, &eh))
    {
      rc = ossd_rt_err (err, errlen, -EINVAL, "elf: not a readable ELF object (%s)",
                        elf_errmsg (-1));
      goto out;
    }
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB
      || eh.e_machine != EM_BPF || eh.e_type != ET_REL)
    {
      rc = ossd_rt_err (err, errlen, -EINVAL,
                        "elf: need a 64-bit little-endian BPF relocatable object "
                        "(class %d, data %d, machine %d, type %d)",
                        eh.e_ident[EI_CLASS], eh.e_ident[EI_DATA], eh.e_machine,
                        eh.e_type);
      goto out;
    }
  size_t nsec;
  if (elf_getshdrstrndx (L.elf, &L.shstrndx) != 0
      || elf_getshdrnum (L.elf, &nsec) != 0 || nsec > OSSD_MAX_SECTIONS)
    {
      rc = ossd_rt_err (err, errlen, -EINVAL, "elf: bad section header table");
      goto out;
    }
  {
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn (L.elf, scn)))
      {
        GElf_Shdr sh;
        if (gelf_getshdr (scn, &sh) && sh.sh_type == SHT_SYMTAB)
          {
            if (L.symtab)
              {
                rc = ossd_rt_err (err, errlen, -EINVAL, "elf: two symbol tables");
                goto out;
              }
            if (sh.sh_entsize != sizeof (Elf64_Sym))
              {
                rc = ossd_rt_err (err, errlen, -EINVAL,
                                  "elf: section %s: bad symbol entry size",
                                  sec_name (&L, elf_ndxscn (scn)));
                goto out;
              }
            L.symtab = scn;
          }
      }
  }
  if ((rc = collect_data (&L)) < 0 || (rc = find_kernel (&L)) < 0
      || (rc = apply_relocations (&L)) < 0)
    goto out;
  rc = ossd_prog_from_insns (L.insns, L.insn_count, L.rodata,
                             (uint32_t) L.rodata_len, out, err, errlen);
  if (rc == 0 && L.kernel_name)
    snprintf ((*out)->name, sizeof (*out)->name, "%s", L.kernel_name);
out:
  free (L.insns);
  free (L.rodata);
  if (L.elf)
    elf_end (L.elf);
  free (copy);
  return rc;
}
