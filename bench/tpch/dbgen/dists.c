/* dists.c - the specification's fixed lists and the 1992..1998 calendar. */
#include "dists.h"

#include <stdio.h>

const struct nation_def tpch_nations[25] = {
  {"ALGERIA", 0}, {"ARGENTINA", 1}, {"BRAZIL", 1}, {"CANADA", 1}, {"EGYPT", 4},
  {"ETHIOPIA", 0}, {"FRANCE", 3}, {"GERMANY", 3}, {"INDIA", 2}, {"INDONESIA", 2},
  {"IRAN", 4}, {"IRAQ", 4}, {"JAPAN", 2}, {"JORDAN", 4}, {"KENYA", 0},
  {"MOROCCO", 0}, {"MOZAMBIQUE", 0}, {"PERU", 1}, {"CHINA", 2}, {"ROMANIA", 3},
  {"SAUDI ARABIA", 4}, {"VIETNAM", 2}, {"RUSSIA", 3}, {"UNITED KINGDOM", 3}, {"UNITED STATES", 1},
};
const char *const tpch_regions[5] = {"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"};

const char *const tpch_colors[] = {
  "almond", "antique", "aquamarine", "azure", "beige", "bisque", "black", "blanched", "blue",
  "blush", "brown", "burlywood", "burnished", "chartreuse", "chiffon", "chocolate", "coral",
  "cornflower", "cornsilk", "cream", "cyan", "dark", "deep", "dim", "dodger", "drab", "firebrick",
  "floral", "forest", "frosted", "gainsboro", "ghost", "goldenrod", "green", "grey", "honeydew",
  "hot", "indian", "ivory", "khaki", "lace", "lavender", "lawn", "lemon", "light", "lime", "linen",
  "magenta", "maroon", "medium", "metallic", "midnight", "mint", "misty", "moccasin", "navajo",
  "navy", "olive", "orange", "orchid", "pale", "papaya", "peach", "peru", "pink", "plum", "powder",
  "puff", "purple", "red", "rose", "rosy", "royal", "saddle", "salmon", "sandy", "seashell",
  "sienna", "sky", "slate", "smoke", "snow", "spring", "steel", "tan", "thistle", "tomato",
  "turquoise", "violet", "wheat", "white", "yellow",
};
const int tpch_ncolors = sizeof tpch_colors / sizeof tpch_colors[0];

const char *const tpch_type_s1[6] = {"STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"};
const char *const tpch_type_s2[5] = {"ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"};
const char *const tpch_type_s3[5] = {"TIN", "NICKEL", "BRASS", "STEEL", "COPPER"};
const char *const tpch_container_s1[5] = {"SM", "LG", "MED", "JUMBO", "WRAP"};
const char *const tpch_container_s2[8] = {"CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM"};
const char *const tpch_segments[5] = {"AUTOMOBILE", "BUILDING", "FURNITURE", "MACHINERY", "HOUSEHOLD"};
const char *const tpch_priorities[5] = {"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"};
const char *const tpch_instructions[4] = {"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"};
const char *const tpch_modes[7] = {"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"};

static int
is_leap (int y)
{
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int
month_days (int y, int m)
{
  static const int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && is_leap (y) ? 29 : days[m - 1];
}

int
tpch_day_of (int y, int m, int dd)
{
  int n = 0;
  for (int yy = 1992; yy < y; yy++)
    n += is_leap (yy) ? 366 : 365;
  for (int mm = 1; mm < m; mm++)
    n += month_days (y, mm);
  return n + dd - 1;
}

const char *
tpch_date (int d)
{
  static char table[TPCH_NDAYS][11];
  static int built;
  if (!built)
    {
      int y = 1992, m = 1, dd = 1;
      for (int i = 0; i < TPCH_NDAYS; i++)
        {
          snprintf (table[i], sizeof table[i], "%04d-%02d-%02d", y, m, dd);
          if (++dd > month_days (y, m))
            {
              dd = 1;
              if (++m > 12)
                {
                  m = 1;
                  y++;
                }
            }
        }
      built = 1;
    }
  return table[d];
}
