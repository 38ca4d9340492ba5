/* cap.c - capabilities: MAC (HMAC-SHA256, OpenSSL), key files, text and
 * protobuf forms, and the rights each command needs (ossd_cap.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "ossd_cap.h"

uint64_t
ossd_realtime_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_REALTIME, &ts);
  return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

static void
put_le (uint8_t *p, uint64_t v, int n)
{
  for (int i = 0; i < n; i++)
    p[i] = (uint8_t) (v >> (8 * i));
}

static void
hmac_sha256 (const uint8_t key[OSSD_KEY_BYTES], const uint8_t *msg,
             size_t len, uint8_t out[OSSD_MAC_BYTES])
{
  unsigned int outlen = OSSD_MAC_BYTES;
  HMAC (EVP_sha256 (), key, OSSD_KEY_BYTES, msg, len, out, &outlen);
}

void
ossd_partition_key (const uint8_t master[OSSD_KEY_BYTES], uint64_t pid,
                    uint8_t out[OSSD_KEY_BYTES])
{
  static const char label[] = "ossd partition key";
  uint8_t msg[sizeof label - 1 + 8];

  if (pid == 0)
    {
      memcpy (out, master, OSSD_KEY_BYTES);
      return;
    }
  memcpy (msg, label, sizeof label - 1);
  put_le (msg + sizeof label - 1, pid, 8);
  hmac_sha256 (master, msg, sizeof msg, out);
}

static void
cap_mac (const uint8_t master[OSSD_KEY_BYTES], const struct ossd_cap *cap,
         uint8_t out[OSSD_MAC_BYTES])
{
  uint8_t key[OSSD_KEY_BYTES], msg[44];

  memcpy (msg, "OSSDCAP1", 8);
  put_le (msg + 8, cap->pid, 8);
  put_le (msg + 16, cap->oid, 8);
  put_le (msg + 24, cap->rights, 4);
  put_le (msg + 28, cap->expiry_ns, 8);
  put_le (msg + 36, cap->version, 8);
  ossd_partition_key (master, cap->pid, key);
  hmac_sha256 (key, msg, sizeof msg, out);
  OPENSSL_cleanse (key, sizeof key);
}

void
ossd_cap_sign (const uint8_t master[OSSD_KEY_BYTES], struct ossd_cap *cap)
{
  cap->pad = 0;
  cap_mac (master, cap, cap->mac);
}

bool
ossd_cap_mac_ok (const uint8_t master[OSSD_KEY_BYTES],
                 const struct ossd_cap *cap)
{
  uint8_t want[OSSD_MAC_BYTES];

  cap_mac (master, cap, want);
  return CRYPTO_memcmp (want, cap->mac, OSSD_MAC_BYTES) == 0;
}

/* ---- key files --------------------------------------------------------- */

int
ossd_key_random (uint8_t key[OSSD_KEY_BYTES])
{
  return RAND_bytes (key, OSSD_KEY_BYTES) == 1 ? 0 : -EIO;
}

int
ossd_key_load (const char *path, uint8_t key[OSSD_KEY_BYTES], char *why,
               size_t whylen)
{
  struct stat st;
  ssize_t n;
  int fd = open (path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), e;

  if (fd < 0 && errno == ELOOP)
    fd = open (path, O_RDONLY | O_CLOEXEC);   /* a rundir link to IMAGE.key */
  if (fd < 0)
    {
      e = errno;
      snprintf (why, whylen, "key file %s: %s", path, strerror (e));
      return -e;
    }
  if (fstat (fd, &st) < 0 || !S_ISREG (st.st_mode))
    {
      close (fd);
      snprintf (why, whylen, "key file %s: not a regular file", path);
      return -EINVAL;
    }
  /* As ssh does with private keys: a key others can read is no secret. */
  if (st.st_mode & (S_IRWXG | S_IRWXO))
    {
      close (fd);
      snprintf (why, whylen, "key file %s is mode %04o: others may read it (chmod 600)",
                path, (unsigned) (st.st_mode & 07777));
      return -EPERM;
    }
  n = read (fd, key, OSSD_KEY_BYTES);
  e = errno;
  close (fd);
  if (n != OSSD_KEY_BYTES || st.st_size != OSSD_KEY_BYTES)
    {
      snprintf (why, whylen, "key file %s: %s (a key file holds exactly %d bytes)",
                path, n < 0 ? strerror (e) : "wrong size", OSSD_KEY_BYTES);
      return n < 0 ? -e : -EINVAL;
    }
  return 0;
}

int
ossd_key_create (const char *path, uint8_t key[OSSD_KEY_BYTES], char *why,
                 size_t whylen)
{
  int fd, e;

  if (ossd_key_random (key) < 0)
    {
      snprintf (why, whylen, "key file %s: no random bytes from OpenSSL", path);
      return -EIO;
    }
  fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0)
    {
      e = errno;
      snprintf (why, whylen, "key file %s: %s", path, strerror (e));
      return -e;
    }
  if (fchmod (fd, 0600) < 0 || write (fd, key, OSSD_KEY_BYTES) != OSSD_KEY_BYTES
      || fsync (fd) < 0)
    {
      e = errno ? errno : EIO;
      close (fd);
      unlink (path);
      snprintf (why, whylen, "key file %s: %s", path, strerror (e));
      return -e;
    }
  close (fd);
  return 0;
}

/* ---- text and protobuf forms ---------------------------------------------- */

int
ossd_cap_format (const struct ossd_cap *cap, char *buf, size_t len)
{
  char hex[2 * OSSD_MAC_BYTES + 1];
  int n;

  for (int i = 0; i < OSSD_MAC_BYTES; i++)
    snprintf (hex + 2 * i, 3, "%02x", cap->mac[i]);
  n = snprintf (buf, len, "ossdcap1 pid=%" PRIu64 " oid=%" PRIu64
                " rights=0x%x expiry=%" PRIu64 " version=%" PRIu64 " mac=%s",
                cap->pid, cap->oid, cap->rights, cap->expiry_ns, cap->version,
                hex);
  return n < 0 || (size_t) n >= len ? -ERANGE : n;
}

int
ossd_cap_parse (const char *text, struct ossd_cap *cap)
{
  char hex[2 * OSSD_MAC_BYTES + 2];
  int used = 0;

  memset (cap, 0, sizeof *cap);
  if (sscanf (text, "ossdcap1 pid=%" SCNu64 " oid=%" SCNu64 " rights=%" SCNx32
              " expiry=%" SCNu64 " version=%" SCNu64 " mac=%65s%n",
              &cap->pid, &cap->oid, &cap->rights, &cap->expiry_ns,
              &cap->version, hex, &used) != 6
      || strlen (hex) != 2 * OSSD_MAC_BYTES)
    return -EINVAL;
  while (text[used] == '\n' || text[used] == ' ')
    used++;
  if (text[used] != '\0')
    return -EINVAL;
  for (int i = 0; i < OSSD_MAC_BYTES; i++)
    {
      unsigned v;
      if (sscanf (hex + 2 * i, "%2x", &v) != 1)
        return -EINVAL;
      cap->mac[i] = (uint8_t) v;
    }
  return 0;
}

const char *
ossd_rights_string (uint32_t rights, char *buf, size_t len)
{
  static const char *const names[] = { "read", "write", "attributes",
    "create/remove", "scan", "kernel", "admin" };
  size_t n = 0;

  buf[0] = '\0';
  for (int i = 0; i < 7; i++)
    if (rights & (1u << i))
      n += snprintf (buf + n, n < len ? len - n : 0, "%s%s", n ? "," : "",
                     names[i]);
  if (n == 0)
    snprintf (buf, len, "none");
  return buf;
}

void
ossd_cap_to_proto (const struct ossd_cap *cap, Ossd__Capability *pb)
{
  ossd__capability__init (pb);
  pb->pid = cap->pid;
  pb->oid = cap->oid;
  pb->rights = cap->rights;
  pb->expiry_ns = cap->expiry_ns;
  pb->version = cap->version;
  pb->mac.data = (uint8_t *) cap->mac;
  pb->mac.len = OSSD_MAC_BYTES;
}

int
ossd_cap_from_proto (const Ossd__Capability *pb, struct ossd_cap *cap)
{
  memset (cap, 0, sizeof *cap);
  if (pb->mac.len != OSSD_MAC_BYTES)
    return -EINVAL;
  cap->pid = pb->pid;
  cap->oid = pb->oid;
  cap->rights = pb->rights;
  cap->expiry_ns = pb->expiry_ns;
  cap->version = pb->version;
  memcpy (cap->mac, pb->mac.data, OSSD_MAC_BYTES);
  return 0;
}

/* ---- rights per command ---------------------------------------------------- */

struct needs_builder
{
  struct ossd_cap_need *v;
  size_t n, max;
};

static void
need (struct needs_builder *b, uint64_t pid, uint64_t oid, uint32_t rights,
      bool device, bool any_partition)
{
  if (b->n < b->max)
    b->v[b->n] = (struct ossd_cap_need) { .pid = pid, .oid = oid,
      .rights = rights, .device = device, .any_partition = any_partition };
  b->n++;
}

/* An object need; a missing id needs nothing here (the dispatcher
 * refuses the request as malformed). */
static void
need_obj (struct needs_builder *b, const Ossd__ObjectId *o, uint32_t rights)
{
  if (o)
    need (b, o->pid, o->oid, rights, false, false);
}

static uint32_t
set_attrs_rights (const Ossd__SetAttributes *sa)
{
  uint32_t r = OSSD_RIGHT_ATTR;
  for (size_t i = 0; i < sa->n_attrs; i++)
    if (sa->attrs[i]->page == OSSD_CAP_ATTR_PAGE)
      r |= OSSD_RIGHT_ADMIN;
  return r;
}

static void
compound_op_needs (struct needs_builder *b, const Ossd__CompoundOp *c)
{
  switch (c->op_case)
    {
    case OSSD__COMPOUND_OP__OP_CREATE: need_obj (b, c->create->obj, OSSD_RIGHT_CREATE); break;
    case OSSD__COMPOUND_OP__OP_REMOVE: need_obj (b, c->remove->obj, OSSD_RIGHT_CREATE); break;
    case OSSD__COMPOUND_OP__OP_WRITE: need_obj (b, c->write->obj, OSSD_RIGHT_WRITE); break;
    case OSSD__COMPOUND_OP__OP_PUNCH: need_obj (b, c->punch->obj, OSSD_RIGHT_WRITE); break;
    case OSSD__COMPOUND_OP__OP_SET_LENGTH: need_obj (b, c->set_length->obj, OSSD_RIGHT_WRITE); break;
    case OSSD__COMPOUND_OP__OP_SET_ATTRIBUTES:
      need_obj (b, c->set_attributes->obj, set_attrs_rights (c->set_attributes));
      break;
    default:
      break;
    }
}

size_t
ossd_request_needs (const Ossd__Request *req, struct ossd_cap_need *needs,
                    size_t max)
{
  struct needs_builder b = { needs, 0, max };

  switch (req->body_case)
    {
    case OSSD__REQUEST__BODY_STATS:
      if (req->stats && req->stats->reset)
        need (&b, 0, 0, OSSD_RIGHT_ADMIN, true, false);
      break;
    case OSSD__REQUEST__BODY_FORMAT:
    case OSSD__REQUEST__BODY_FSCK:
    case OSSD__REQUEST__BODY_PROFILE:
    case OSSD__REQUEST__BODY_CREATE_PARTITION:
    case OSSD__REQUEST__BODY_REMOVE_PARTITION:
    case OSSD__REQUEST__BODY_LIST_PARTITIONS:
      need (&b, 0, 0, OSSD_RIGHT_ADMIN, true, false);
      break;
    case OSSD__REQUEST__BODY_LIST:
      need (&b, req->list->pid, 0, OSSD_RIGHT_READ, false, false);
      break;
    case OSSD__REQUEST__BODY_CREATE: need_obj (&b, req->create->obj, OSSD_RIGHT_CREATE); break;
    case OSSD__REQUEST__BODY_REMOVE: need_obj (&b, req->remove->obj, OSSD_RIGHT_CREATE); break;
    case OSSD__REQUEST__BODY_READ: need_obj (&b, req->read->obj, OSSD_RIGHT_READ); break;
    case OSSD__REQUEST__BODY_WRITE: need_obj (&b, req->write->obj, OSSD_RIGHT_WRITE); break;
    case OSSD__REQUEST__BODY_APPEND: need_obj (&b, req->append->obj, OSSD_RIGHT_WRITE); break;
    case OSSD__REQUEST__BODY_PUNCH: need_obj (&b, req->punch->obj, OSSD_RIGHT_WRITE); break;
    case OSSD__REQUEST__BODY_SET_LENGTH: need_obj (&b, req->set_length->obj, OSSD_RIGHT_WRITE); break;
    case OSSD__REQUEST__BODY_GET_ATTRIBUTES: need_obj (&b, req->get_attributes->obj, OSSD_RIGHT_READ); break;
    case OSSD__REQUEST__BODY_SET_ATTRIBUTES:
      need_obj (&b, req->set_attributes->obj, set_attrs_rights (req->set_attributes));
      break;
    case OSSD__REQUEST__BODY_CAS:
      need_obj (&b, req->cas->obj, OSSD_RIGHT_READ | OSSD_RIGHT_WRITE);
      break;
    case OSSD__REQUEST__BODY_FLUSH:
      /* A device flush is open (it only makes acknowledged data durable);
       * narrower scopes name an object or a partition. */
      if (req->flush->drop_caches)
        need (&b, 0, 0, OSSD_RIGHT_ADMIN, true, false);
      else if (req->flush->scope == OSSD__FLUSH_SCOPE__FLUSH_OBJECT)
        need_obj (&b, req->flush->obj, OSSD_RIGHT_WRITE);
      else if (req->flush->scope == OSSD__FLUSH_SCOPE__FLUSH_PARTITION && req->flush->obj)
        need (&b, req->flush->obj->pid, 0, OSSD_RIGHT_WRITE, false, false);
      break;
    case OSSD__REQUEST__BODY_COMPOUND:
      for (size_t i = 0; i < req->compound->n_ops; i++)
        compound_op_needs (&b, req->compound->ops[i]);
      break;
    case OSSD__REQUEST__BODY_KERNEL_DEPLOY:
    case OSSD__REQUEST__BODY_KERNEL_REMOVE:
      need (&b, 0, 0, OSSD_RIGHT_KERNEL, false, true);
      break;
    case OSSD__REQUEST__BODY_SCAN:
      for (size_t i = 0; i < req->scan->n_targets; i++)
        need_obj (&b, req->scan->targets[i]->obj, OSSD_RIGHT_SCAN);
      break;
    default:
      /* CLAIM, RELEASE, CANCEL, INFO, KERNEL LIST: open. */
      break;
    }
  return b.n;
}

const char *
ossd_request_name (const Ossd__Request *req)
{
  switch (req->body_case)
    {
    case OSSD__REQUEST__BODY_CLAIM: return "CLAIM";
    case OSSD__REQUEST__BODY_RELEASE: return "RELEASE";
    case OSSD__REQUEST__BODY_FORMAT: return "FORMAT";
    case OSSD__REQUEST__BODY_INFO: return "INFO";
    case OSSD__REQUEST__BODY_STATS: return "STATS";
    case OSSD__REQUEST__BODY_CREATE_PARTITION: return "CREATE PARTITION";
    case OSSD__REQUEST__BODY_REMOVE_PARTITION: return "REMOVE PARTITION";
    case OSSD__REQUEST__BODY_LIST_PARTITIONS: return "LIST PARTITIONS";
    case OSSD__REQUEST__BODY_CREATE: return "CREATE";
    case OSSD__REQUEST__BODY_REMOVE: return "REMOVE";
    case OSSD__REQUEST__BODY_READ: return "READ";
    case OSSD__REQUEST__BODY_WRITE: return "WRITE";
    case OSSD__REQUEST__BODY_APPEND: return "APPEND";
    case OSSD__REQUEST__BODY_PUNCH: return "PUNCH";
    case OSSD__REQUEST__BODY_SET_LENGTH: return "SET LENGTH";
    case OSSD__REQUEST__BODY_GET_ATTRIBUTES: return "GET ATTRIBUTES";
    case OSSD__REQUEST__BODY_SET_ATTRIBUTES: return "SET ATTRIBUTES";
    case OSSD__REQUEST__BODY_LIST: return "LIST";
    case OSSD__REQUEST__BODY_FLUSH: return "FLUSH";
    case OSSD__REQUEST__BODY_CAS: return "CAS";
    case OSSD__REQUEST__BODY_COMPOUND: return "COMPOUND";
    case OSSD__REQUEST__BODY_KERNEL_DEPLOY: return "KERNEL DEPLOY";
    case OSSD__REQUEST__BODY_KERNEL_LIST: return "KERNEL LIST";
    case OSSD__REQUEST__BODY_KERNEL_REMOVE: return "KERNEL REMOVE";
    case OSSD__REQUEST__BODY_SCAN: return "SCAN";
    case OSSD__REQUEST__BODY_FSCK: return "FSCK";
    case OSSD__REQUEST__BODY_CANCEL: return "CANCEL";
    case OSSD__REQUEST__BODY_PROFILE: return "PROFILE";
    default: return "unknown command";
    }
}

bool
ossd_cap_covers (const struct ossd_cap *cap, const struct ossd_cap_need *n)
{
  if ((cap->rights & n->rights) != n->rights)
    return false;
  if (cap->pid == 0)
    return true;               /* device-wide */
  if (n->device)
    return false;
  if (n->any_partition)
    return cap->oid == 0;
  if (cap->pid != n->pid)
    return false;
  return cap->oid == 0 || cap->oid == n->oid;
}
