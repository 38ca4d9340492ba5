#!/usr/bin/env bash
# 30-security-drive.sh - the drive's capabilities (docs/security.md) with
# real processes: a socket for root and one group (device start --group);
# as OS user nobody, in that group, ossdctl get/ls/format/attr set/rm/put
# are refused with a permission error and the drive is unchanged; a user
# outside the group cannot reach the socket; forged and revoked
# capabilities are refused; through ossdfs a user gets a capability for a
# file only as its owner and mode allow (getxattr user.ossd.cap and the
# cap line of user.ossd.scan), and a kernel capability only in
# --kernel-group.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/harness/tap.sh"
. "$top/tests/integration/ossdfs-lib.bash"
ofs_init security
# nobody and daemon run ossdctl from $work (0755): the checkout may be
# unreadable to them (a 0700 home or mktemp dir), as it is on CI
mkdir -p "$work/bin"
uctl=$work/bin/ossdctl
install -m 755 "$ctl" "$uctl"
install -m 644 "$top/README.md" "$work/payload"
as_other () { local u=$1; shift; (cd "$work" && runuser -u "$u" -- "$@"); }
as_nobody () { as_other nobody "$@"; }
# "description" "expected text" command...: the command fails and says so.
refused () {
  local d=$1 want=$2 out; shift 2
  if out=$("$@" 2>&1); then tap_not_ok "$d" "it succeeded: $out"
  else
    case $out in *"$want"*) tap_ok "$d" ;; *) tap_not_ok "$d" "$out" ;; esac
  fi
}
state () {
  "$ctl" partition ls; "$ctl" ls 5; "$ctl" attr ls 5:7; "$ctl" get 5:7 - | md5sum
}

ok_if "drive starts with --group nogroup" \
  "$ctl" device start --image "$work/drive.img" --size 1G --volume 16M --group nogroup
[ "$(stat -c '%a %U:%G' "$sock")" = "660 root:nogroup" ] && tap_ok "socket is 0660 root:nogroup" \
  || tap_not_ok "socket is 0660 root:nogroup" "$(stat -c '%a %U:%G' "$sock")"
[ "$(stat -c '%a %U' "$work/drive.img.key")" = "600 root" ] && [ "$(stat -c %s "$work/drive.img.key")" = 32 ] \
  && tap_ok "master key beside the image: 32 bytes, 0600 root" \
  || tap_not_ok "master key beside the image: 32 bytes, 0600 root" "$(ls -l "$work/drive.img.key" 2>&1)"
[ "$(readlink "$OSSD_RUNDIR/ossd.key")" = "$work/drive.img.key" ] && tap_ok "run directory links ossd.key to it" \
  || tap_not_ok "run directory links ossd.key to it" "$(ls -l "$OSSD_RUNDIR")"
chmod 755 "$OSSD_RUNDIR"

head -c 20000 /dev/urandom >"$work/secret"
ok_if "root (key file) creates partition 5 and object 5:7" \
  bash -c "'$ctl' partition create 5 && '$ctl' put '$work/secret' 5:7 && '$ctl' attr set 5:7 1 1 root-attr"
before=$(state 2>&1)

# ---- nobody: in the socket's group, without the key ---------------------
ok_if "nobody reaches the drive: info is open" as_nobody "$uctl" info
refused "nobody: get 5:7 refused" "permission denied: no capability" as_nobody "$uctl" get 5:7 "$work/nobody.out"
[ ! -s "$work/nobody.out" ] && tap_ok "nobody got no byte of 5:7" || tap_not_ok "nobody got no byte of 5:7" "$(wc -c <"$work/nobody.out")"
refused "nobody: ls 5 refused" "LIST: permission denied" as_nobody "$uctl" ls 5
refused "nobody: partition ls refused" "permission denied" as_nobody "$uctl" partition ls
refused "nobody: format refused" "FORMAT: permission denied: no capability (it needs admin on the drive)" \
  as_nobody "$uctl" format
refused "nobody: attr set refused" "SET ATTRIBUTES: permission denied" as_nobody "$uctl" attr set 5:7 1 1 evil
refused "nobody: rm refused" "permission denied" as_nobody "$uctl" rm 5:7
refused "nobody: put refused" "permission denied" as_nobody "$uctl" put "$work/payload" 5:8
refused "nobody: partition create refused" "permission denied" as_nobody "$uctl" partition create 6
refused "nobody: stats --reset refused" "STATS: permission denied" as_nobody "$uctl" stats --reset
refused "nobody cannot read the key file" "Permission denied" as_nobody "$uctl" --key-file "$work/drive.img.key" ls 5
# a capability with a changed MAC, then one with its rights widened
good="ossdcap1 pid=5 oid=7 rights=0x1 expiry=$(( $(date +%s) + 600 ))000000000 version=0 mac=$(printf '%064d' 0)"
refused "nobody: a made-up capability is refused (MAC)" "MAC does not verify" as_nobody "$uctl" --cap "$good" get 5:7 -
refused "daemon (not in the group) cannot reach the socket" "Permission denied" as_other daemon "$uctl" info

after=$(state 2>&1)
[ "$before" = "$after" ] && tap_ok "drive state unchanged (partitions, objects, attributes, bytes)" \
  || tap_not_ok "drive state unchanged" "before: $before / after: $after"
refusals=$("$ctl" --json stats | sed -n 's/.*"cap_refusals": \([0-9]*\).*/\1/p')
[ "${refusals:-0}" -ge 10 ] && tap_ok "STATS counts the refusals ($refusals)" \
  || tap_not_ok "STATS counts the refusals" "$("$ctl" stats | grep cap_)"

# ---- ossdfs hands out capabilities as the file permissions allow ----------
ok_if "ossdfs mounts (holds the key; --kernel-group nogroup)" fs_mount --kernel-group nogroup
echo "root only" >"$mnt/rootfile"; chmod 600 "$mnt/rootfile"
echo "everyone reads" >"$mnt/public"; chmod 644 "$mnt/public"
echo "nobody's" >"$mnt/mine"; chown nobody: "$mnt/mine"; chmod 600 "$mnt/mine"
refused "nobody: no capability for a 0600 root file (EACCES)" "Permission denied" \
  as_nobody getfattr --absolute-names --only-values -n user.ossd.cap "$mnt/rootfile"
cap_root=$(getfattr --absolute-names --only-values -n user.ossd.cap "$mnt/rootfile" 2>&1)
case $cap_root in "ossdcap1 pid=1 oid="*" rights=0x13 "*) tap_ok "root gets read+write+scan for it" ;;
  *) tap_not_ok "root gets read+write+scan for it" "$cap_root" ;; esac
exp=$(echo "$cap_root" | sed -n 's/.* expiry=\([0-9]*\)[0-9]\{9\} .*/\1/p'); nows=$(date +%s)
[ -n "$exp" ] && [ "$exp" -gt $((nows + 3500)) ] && [ "$exp" -le $((nows + 3601)) ] \
  && tap_ok "it expires after the default --cap-ttl-s (3600 s)" \
  || tap_not_ok "it expires after the default --cap-ttl-s (3600 s)" "expiry $exp, now $nows"
cap_mine=$(as_nobody getfattr --absolute-names --only-values -n user.ossd.cap "$mnt/mine" 2>&1)
case $cap_mine in *" rights=0x13 "*) tap_ok "the owner (nobody) gets read+write+scan for its 0600 file" ;;
  *) tap_not_ok "the owner (nobody) gets read+write+scan for its 0600 file" "$cap_mine" ;; esac
cap_pub=$(as_nobody getfattr --absolute-names --only-values -n user.ossd.cap "$mnt/public" 2>&1)
case $cap_pub in *" rights=0x11 "*) tap_ok "others get read+scan, not write, for a 0644 file" ;;
  *) tap_not_ok "others get read+scan, not write, for a 0644 file" "$cap_pub" ;; esac
oid_mine=$(getfattr --absolute-names --only-values -n user.ossd.oid "$mnt/mine")
oid_root=$(getfattr --absolute-names --only-values -n user.ossd.oid "$mnt/rootfile")
oid_pub=$(getfattr --absolute-names --only-values -n user.ossd.oid "$mnt/public")
# user.ossd.scan: what a scan start reads, in one round trip, with the
# same capability the caller's permissions give.
scan_pub=$(as_nobody getfattr --absolute-names --only-values -n user.ossd.scan "$mnt/public" 2>&1)
want="oid $oid_pub
pid 1
device $(getfattr --absolute-names --only-values -n user.ossd.device "$mnt/public")
layout $(getfattr --absolute-names --only-values -n user.ossd.layout "$mnt/public")"
[ "$(echo "$scan_pub" | head -4)" = "$want" ] \
  && tap_ok "user.ossd.scan gives the file's oid, pid, device and layout" \
  || tap_not_ok "user.ossd.scan gives the file's oid, pid, device and layout" "$scan_pub / want $want"
scan_cap=$(echo "$scan_pub" | sed -n 's/^cap //p')
case $scan_cap in "ossdcap1 pid=1 oid=$oid_pub rights=0x11 "*) tap_ok "and others' read+scan capability for the 0644 file" ;;
  *) tap_not_ok "and others' read+scan capability for the 0644 file" "$scan_pub" ;; esac
out=$(as_nobody "$uctl" --cap "$scan_cap" get "1:$oid_pub" - 2>&1)
[ "$out" = "everyone reads" ] && tap_ok "that capability reads the object from the drive" \
  || tap_not_ok "that capability reads the object from the drive" "$out"
refused "nobody gets no user.ossd.scan of a 0600 root file (read permission, as for user.ossd.cap)" \
  "Permission denied" as_nobody getfattr --absolute-names --only-values -n user.ossd.scan "$mnt/rootfile"
refused "user.ossd.scan of a directory: no such attribute" "No such attribute" \
  getfattr --absolute-names --only-values -n user.ossd.scan "$mnt"
out=$(as_nobody "$uctl" --cap "$cap_mine" get "1:$oid_mine" - 2>&1)
[ "$out" = "nobody's" ] && tap_ok "nobody reads its own file's object from the drive with that capability" \
  || tap_not_ok "nobody reads its own file's object from the drive with that capability" "$out"
refused "that capability does not open root's file's object" "GET ATTRIBUTES: permission denied" \
  as_nobody "$uctl" --cap "$cap_mine" get "1:$oid_root" -
refused "the read capability of the 0644 file does not let put change it" "permission denied" \
  as_nobody "$uctl" --cap "$cap_pub" put "$work/payload" "1:$oid_pub"
[ "$(cat "$mnt/public")" = "everyone reads" ] && tap_ok "the 0644 file is unchanged" \
  || tap_not_ok "the 0644 file is unchanged" "$(head -c 100 "$mnt/public")"
kc=$(as_nobody getfattr --absolute-names --only-values -n user.ossd.kernelcap "$mnt" 2>&1)
case $kc in *" oid=0 rights=0x20 "*) tap_ok "a --kernel-group member gets a kernel capability" ;;
  *) tap_not_ok "a --kernel-group member gets a kernel capability" "$kc" ;; esac
refused "others get no kernel capability" "Permission denied" \
  runuser -u daemon -- getfattr --absolute-names --only-values -n user.ossd.kernelcap "$mnt"
# Revocation: chmod (or chown) bumps the object's capability version in
# the same batch, so capabilities minted before stop working; new ones do.
cap_pub_old=$cap_pub
ok_if "chmod 640 the public file" chmod 640 "$mnt/public"
refused "its capability minted before the chmod is revoked" "(revoked)" \
  as_nobody "$uctl" --cap "$cap_pub_old" get "1:$oid_pub" -
cap_pub_root=$(getfattr --absolute-names --only-values -n user.ossd.cap "$mnt/public" 2>&1)
out=$(as_nobody "$uctl" --cap "$cap_pub_root" get "1:$oid_pub" - 2>&1)
[ "$out" = "everyone reads" ] && tap_ok "a capability minted after it works" \
  || tap_not_ok "a capability minted after it works" "$out"
refused "nobody gets none for the 0640 file now" "Permission denied" \
  as_nobody getfattr --absolute-names --only-values -n user.ossd.cap "$mnt/public"
# Revocation by hand: root bumps the version attribute (admin right).
ok_if "root bumps the capability version of nobody's file" "$ctl" attr set "1:$oid_mine" 32 1 1
refused "the capability minted before is revoked" "(revoked)" as_nobody "$uctl" --cap "$cap_mine" get "1:$oid_mine" -
fs_umount
tap_done
