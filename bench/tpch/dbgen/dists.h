/* dists.h - the TPC-H specification's fixed value lists (clause 4.2.2,
 * 4.2.3): nations and regions, part name colours, types, containers,
 * segments, priorities, ship instructions and modes, and the calendar. */
#ifndef TPCH_DISTS_H
#define TPCH_DISTS_H

#include <stdint.h>

struct nation_def
{
  const char *name;
  int regionkey;
};

extern const struct nation_def tpch_nations[25];
extern const char *const tpch_regions[5];
extern const char *const tpch_colors[];
extern const int tpch_ncolors;
extern const char *const tpch_type_s1[6], *const tpch_type_s2[5], *const tpch_type_s3[5];
extern const char *const tpch_container_s1[5], *const tpch_container_s2[8];
extern const char *const tpch_segments[5];
extern const char *const tpch_priorities[5];
extern const char *const tpch_instructions[4];
extern const char *const tpch_modes[7];

/* Days counted from STARTDATE 1992-01-01 (day 0). */
#define TPCH_CURRENTDATE 1263     /* 1995-06-17 */
#define TPCH_ENDDATE 2556         /* 1998-12-31 */
#define TPCH_NDAYS (TPCH_ENDDATE + 1)

/* "YYYY-MM-DD" of day D (0 <= D < TPCH_NDAYS). */
const char *tpch_date (int d);
/* Day number of Y-M-D (the inverse, for checks). */
int tpch_day_of (int y, int m, int dd);

#endif /* TPCH_DISTS_H */
