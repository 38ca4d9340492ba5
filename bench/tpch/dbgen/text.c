/* text.c - the pseudo-text grammar of the TPC-H specification with its
 * word weights, and the pool that comments are cut from. */
#include "text.h"

#include <stdlib.h>
#include <string.h>

struct word
{
  const char *w;
  int weight;
};

struct wlist
{
  const struct word *words;
  int n;
  int total;
};

#define WLIST(a) { a, (int) (sizeof a / sizeof a[0]), 0 }

static const struct word nouns[] = {
  {"packages", 40}, {"requests", 40}, {"accounts", 40}, {"deposits", 40}, {"foxes", 20},
  {"ideas", 20}, {"theodolites", 20}, {"pinto beans", 20}, {"instructions", 20},
  {"dependencies", 10}, {"excuses", 10}, {"platelets", 10}, {"asymptotes", 10}, {"courts", 5},
  {"dolphins", 5}, {"multipliers", 1}, {"sauternes", 1}, {"warthogs", 1}, {"frets", 1},
  {"dinos", 1}, {"attainments", 1}, {"somas", 1}, {"Tiresias", 1}, {"patterns", 1},
  {"forges", 1}, {"braids", 1}, {"frays", 1}, {"warhorses", 1}, {"dugouts", 1},
  {"notornis", 1}, {"epitaphs", 1}, {"pearls", 1}, {"tithes", 1}, {"waters", 1}, {"orbits", 1},
  {"gifts", 1}, {"sheaves", 1}, {"depths", 1}, {"sentiments", 1}, {"decoys", 1}, {"realms", 1},
  {"pains", 1}, {"grouches", 1}, {"escapades", 1}, {"hockey players", 1},
};
static const struct word verbs[] = {
  {"sleep", 20}, {"wake", 20}, {"are", 20}, {"cajole", 20}, {"haggle", 20}, {"nag", 10},
  {"use", 10}, {"boost", 10}, {"affix", 5}, {"detect", 5}, {"integrate", 5}, {"maintain", 1},
  {"nod", 1}, {"was", 1}, {"lose", 1}, {"sublate", 1}, {"solve", 1}, {"thrash", 1},
  {"promise", 1}, {"engage", 1}, {"hinder", 1}, {"print", 1}, {"x-ray", 1}, {"breach", 1},
  {"eat", 1}, {"grow", 1}, {"impress", 1}, {"mold", 1}, {"poach", 1}, {"serve", 1}, {"run", 1},
  {"dazzle", 1}, {"snooze", 1}, {"doze", 1}, {"unwind", 1}, {"kindle", 1}, {"play", 1},
  {"hang", 1}, {"believe", 1}, {"doubt", 1},
};
static const struct word adjectives[] = {
  {"special", 20}, {"pending", 20}, {"unusual", 20}, {"express", 20}, {"furious", 1},
  {"sly", 1}, {"careful", 1}, {"blithe", 1}, {"quick", 1}, {"fluffy", 1}, {"slow", 1},
  {"quiet", 1}, {"ruthless", 1}, {"thin", 1}, {"close", 1}, {"dogged", 1}, {"daring", 1},
  {"brave", 1}, {"stealthy", 1}, {"permanent", 1}, {"enticing", 1}, {"idle", 1}, {"busy", 1},
  {"regular", 50}, {"final", 40}, {"ironic", 40}, {"even", 30}, {"bold", 20}, {"silent", 10},
};
static const struct word adverbs[] = {
  {"sometimes", 1}, {"always", 1}, {"never", 1}, {"furiously", 50}, {"slyly", 50},
  {"carefully", 50}, {"blithely", 40}, {"quickly", 30}, {"fluffily", 20}, {"slowly", 1},
  {"quietly", 1}, {"ruthlessly", 1}, {"thinly", 1}, {"closely", 1}, {"doggedly", 1},
  {"daringly", 1}, {"bravely", 1}, {"stealthily", 1}, {"permanently", 1}, {"enticingly", 1},
  {"idly", 1}, {"busily", 1}, {"regularly", 1}, {"finally", 1}, {"ironically", 1},
  {"evenly", 1}, {"boldly", 1}, {"silently", 1},
};
static const struct word prepositions[] = {
  {"about", 50}, {"above", 50}, {"according to", 50}, {"across", 50}, {"after", 50},
  {"against", 40}, {"along", 40}, {"alongside of", 30}, {"among", 30}, {"around", 20},
  {"at", 10}, {"atop", 1}, {"before", 1}, {"behind", 1}, {"beneath", 1}, {"beside", 1},
  {"besides", 1}, {"between", 1}, {"beyond", 1}, {"by", 1}, {"despite", 1}, {"during", 1},
  {"except", 1}, {"for", 1}, {"from", 1}, {"in place of", 1}, {"inside", 1}, {"instead of", 1},
  {"into", 1}, {"near", 1}, {"of", 1}, {"on", 1}, {"outside", 1}, {"over", 1}, {"past", 1},
  {"since", 1}, {"through", 1}, {"throughout", 1}, {"to", 1}, {"toward", 1}, {"under", 1},
  {"until", 1}, {"up", 1}, {"upon", 1}, {"without", 1}, {"with", 1}, {"within", 1},
};
static const struct word auxiliaries[] = {
  {"do", 1}, {"may", 1}, {"might", 1}, {"shall", 1}, {"will", 1}, {"would", 1}, {"can", 1},
  {"could", 1}, {"should", 1}, {"ought to", 1}, {"must", 1}, {"will have to", 1},
  {"shall have to", 1}, {"could have to", 1}, {"should have to", 1}, {"must have to", 1},
  {"need to", 1}, {"try to", 1},
};
static const struct word terminators[] = {
  {".", 50}, {";", 1}, {":", 1}, {"?", 1}, {"!", 1}, {"--", 1},
};
/* The grammar's productions, one letter per part: N noun phrase, V verb
 * phrase, P prepositional phrase, T terminator; within phrases J
 * adjective, D adverb, X auxiliary, O noun, V verb, ',' a comma. */
static const struct word sentences[] = {
  {"NVT", 3}, {"NVPT", 3}, {"NVNT", 3}, {"NPVNT", 1}, {"NPVPT", 1},
};
static const struct word noun_phrases[] = {
  {"O", 10}, {"JO", 20}, {"J,JO", 10}, {"DJO", 50},
};
static const struct word verb_phrases[] = {
  {"V", 30}, {"XV", 1}, {"VD", 40}, {"XVD", 1},
};

static struct wlist l_nouns = WLIST (nouns), l_verbs = WLIST (verbs), l_adj = WLIST (adjectives),
  l_adv = WLIST (adverbs), l_prep = WLIST (prepositions), l_aux = WLIST (auxiliaries),
  l_term = WLIST (terminators), l_sent = WLIST (sentences), l_np = WLIST (noun_phrases),
  l_vp = WLIST (verb_phrases);

static const char *
pick (struct wlist *l, struct rng *r)
{
  if (l->total == 0)
    for (int i = 0; i < l->n; i++)
      l->total += l->words[i].weight;
  int x = (int) rng_range (r, 0, l->total - 1);
  for (int i = 0; i < l->n; i++)
    if ((x -= l->words[i].weight) < 0)
      return l->words[i].w;
  return l->words[l->n - 1].w;
}

struct sink
{
  char *buf;
  size_t len, cap;
};

static void
put (struct sink *s, const char *w)
{
  size_t n = strlen (w);
  if (s->len + n + 1 > s->cap)
    n = s->cap > s->len + 1 ? s->cap - s->len - 1 : 0;
  memcpy (s->buf + s->len, w, n);
  s->len += n;
}

/* A word, preceded by a space unless it opens the pool. */
static void
word (struct sink *s, const char *w)
{
  if (s->len > 0)
    put (s, " ");
  put (s, w);
}

static void
phrase (struct sink *s, struct rng *r, const char *shape)
{
  for (const char *c = shape; *c; c++)
    switch (*c)
      {
      case 'O': word (s, pick (&l_nouns, r)); break;
      case 'J': word (s, pick (&l_adj, r)); break;
      case 'D': word (s, pick (&l_adv, r)); break;
      case 'X': word (s, pick (&l_aux, r)); break;
      case 'V': word (s, pick (&l_verbs, r)); break;
      case ',': put (s, ","); break;
      }
}

static void
sentence (struct sink *s, struct rng *r)
{
  for (const char *c = pick (&l_sent, r); *c; c++)
    switch (*c)
      {
      case 'N': phrase (s, r, pick (&l_np, r)); break;
      case 'V': phrase (s, r, pick (&l_vp, r)); break;
      case 'P':
        word (s, pick (&l_prep, r));
        word (s, "the");
        phrase (s, r, pick (&l_np, r));
        break;
      case 'T': put (s, pick (&l_term, r)); break;
      }
}

int
text_pool_build (struct text_pool *pool, uint64_t seed, size_t len)
{
  struct sink s = { malloc (len + 1), 0, len + 1 };
  if (!s.buf)
    return -1;
  struct rng r;
  rng_row (&r, seed, 0xff, 0);
  while (s.len < len)
    sentence (&s, &r);
  s.buf[s.len] = 0;
  pool->text = s.buf;
  pool->len = s.len;
  return 0;
}

void
text_pool_free (struct text_pool *pool)
{
  free (pool->text);
  pool->text = NULL;
}

int
text_string (const struct text_pool *pool, struct rng *r, int lo, int hi, char *out)
{
  int n = (int) rng_range (r, lo, hi);
  size_t off = (size_t) rng_range (r, 0, (int64_t) (pool->len - (size_t) n));
  memcpy (out, pool->text + off, (size_t) n);
  return n;
}

int
text_vstring (struct rng *r, int lo, int hi, char *out)
{
  static const char set[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ, ";
  int n = (int) rng_range (r, lo, hi);
  for (int i = 0; i < n; i++)
    out[i] = set[rng_next (r) & 63];
  return n;
}
