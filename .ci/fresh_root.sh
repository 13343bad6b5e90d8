# Fresh Debian 12 roots for CI (sourced by .ci/run): debootstrap --variant=minbase bookworm from
# the mirror this machine's own apt sources name, bind mounts that are undone on every exit path,
# and commands run inside with `chroot … env -i` (nothing of this machine's environment leaks in).
#
#   root_make DIR            a pristine minimal root (debootstrap), apt configured like the host's
#   root_copy FROM TO        a second root from a pristine one (cp -a), before either is used
#   root_mount DIR           /proc, /sys, /dev (+ pts, shm) inside DIR
#   root_run DIR CMD…        CMD in bash inside DIR, with only HOME and PATH set
#   root_cleanup_all         kills what still runs inside a root, unmounts, deletes each root
#                            only when nothing is mounted under it (the EXIT trap of .ci/run)

ATTNLAB_ROOTS=()

# The Debian mirror of the host's own apt sources (one-line .list or deb822 .sources), for bookworm.
host_mirror() {
  local uri
  uri=$(awk '$1 == "deb" && $0 ~ /bookworm( |$)/ { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' \
          /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | head -n 1)
  if [ -z "$uri" ]; then
    uri=$(awk 'BEGIN { RS = ""; FS = "\n" }
               /(^|\n)Suites:[^\n]*bookworm([ \n]|$)/ && !/(^|\n)Suites:[^\n]*bookworm-security/ {
                 for (i = 1; i <= NF; i++) if ($i ~ /^URIs:/) { sub(/^URIs:[ \t]*/, "", $i); split($i, u, " "); print u[1]; exit } }' \
            /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
  fi
  [ -n "$uri" ] || { echo "ci: no bookworm mirror found in /etc/apt/sources.list*" >&2; return 1; }
  echo "$uri"
}

root_make() {
  local dir=$1 mirror
  mirror=$(host_mirror)
  ATTNLAB_ROOTS+=("$dir")
  echo "ci: debootstrap --variant=minbase bookworm $dir $mirror"
  debootstrap --variant=minbase bookworm "$dir" "$mirror" >"$dir.debootstrap.log" 2>&1 ||
    { tail -n 30 "$dir.debootstrap.log"; return 1; }
  # The host's sources and apt settings (the same mirror, security and updates; snapshot options
  # such as Check-Valid-Until), and its resolver.
  rm -f "$dir/etc/apt/sources.list"
  cp -a /etc/apt/sources.list "$dir/etc/apt/" 2>/dev/null || true
  cp -a /etc/apt/sources.list.d/. "$dir/etc/apt/sources.list.d/" 2>/dev/null || true
  find "$dir/etc/apt/sources.list.d" -name '*.disabled*' -delete
  cp -a /etc/apt/apt.conf.d/. "$dir/etc/apt/apt.conf.d/" 2>/dev/null || true
  cp -L /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true
}

root_copy() {
  ATTNLAB_ROOTS+=("$2")
  cp -a "$1" "$2"
}

root_mount() {
  local dir=$1
  mount -t proc proc "$dir/proc"
  mount -t sysfs sys "$dir/sys"
  mount --bind /dev "$dir/dev"
  mount --bind /dev/pts "$dir/dev/pts"
  mount -t tmpfs shm "$dir/dev/shm"
}

root_run() {
  local dir=$1
  shift
  chroot "$dir" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    /bin/bash -c "$*"
}

# Every process whose root is inside DIR (a window left running, a stray server) is killed first,
# so that nothing keeps a mount busy.
root_kill_inside() {
  local dir p link
  dir=$(readlink -f "$1")
  for p in /proc/[0-9]*; do
    link=$(readlink "$p/root" 2>/dev/null) || continue
    case "$link" in "$dir"|"$dir"/*) kill -9 "${p#/proc/}" 2>/dev/null || true ;; esac
  done
}

root_mounts_under() {
  local dir
  dir=$(readlink -f "$1")
  findmnt -rn -o TARGET | awk -v d="$dir" '$0 == d || index($0, d "/") == 1'
}

root_unmount() {
  local dir=$1 m
  root_kill_inside "$dir"
  # deepest first
  for m in $(root_mounts_under "$dir" | sort -r); do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; done
}

root_cleanup_all() {
  local dir
  for dir in "${ATTNLAB_ROOTS[@]}"; do
    [ -d "$dir" ] || continue
    root_unmount "$dir"
    if [ -n "$(root_mounts_under "$dir")" ]; then
      echo "ci: NOT deleting $dir: still mounted under it:" >&2
      root_mounts_under "$dir" >&2
      continue
    fi
    rm -rf --one-file-system "$dir" "$dir.debootstrap.log"
  done
}
