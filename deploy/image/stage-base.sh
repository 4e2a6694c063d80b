#!/usr/bin/env bash
# Stages a root filesystem with no distribution in it: exactly the shared libraries that the given
# ELF files need (their NEEDED entries, followed through the libraries themselves), taken from
# Debian's packages of the build host's suite (debian-packages.sh), plus CA certificates, the user
# database and the directories the processes write (/data, /tmp). No shell, no package manager.
# Called by build-image.sh with: <work dir> <out dir> <ELF tree>... (the trees of both tags, so
# the -lite tag's binaries find their libraries in the base too). Writes <out dir>.packages:
# "name version" lines, for the SBOM.
set -euo pipefail
work=$1 out=$2
shift 2
say() { printf 'image: %s\n' "$*" >&2; }
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# glibc, the C++ runtime (Node, PostgreSQL's ICU) and the unwinder; ca-certificates for TLS
# clients that read the system store (Temporal's core bridge with TEMPORAL_TLS, for one).
PACKAGES=(libc6 libstdc++6 libgcc-s1 ca-certificates)
LIBDIR=usr/lib/x86_64-linux-gnu

source "$here/debian-packages.sh"
root="$work/debroot"
rm -rf "$root"
: >"$out.packages"
unpack_debs "$work" "$root" "$out.packages" "${PACKAGES[@]}"

mkdir -p "$out/$LIBDIR" "$out/usr/lib64" "$out/etc/ssl/certs" "$out/data" "$out/tmp"
# Debian's search path (/lib/x86_64-linux-gnu) and the x86-64 ABI's loader path (/lib64), merged into /usr.
[[ -e "$out/lib" ]] || ln -s usr/lib "$out/lib"
[[ -e "$out/lib64" ]] || ln -s usr/lib64 "$out/lib64"
[[ -e "$out/usr/lib64/ld-linux-x86-64.so.2" ]] || ln -s ../lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 "$out/usr/lib64/ld-linux-x86-64.so.2"

# A library by soname from the packages: its file, with the soname as a link when they differ.
find_lib() {
  local soname=$1 dir
  for dir in "$root/lib/x86_64-linux-gnu" "$root/usr/lib/x86_64-linux-gnu"; do
    [[ -e "$dir/$soname" ]] && { echo "$dir/$soname"; return 0; }
  done
  return 0
}
needed() { readelf -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
# Libraries the staged trees bring themselves (PostgreSQL's, found through its RUNPATH or loaded
# by it) are theirs to provide.
declare -A bundled=()
while IFS= read -r -d '' lib; do bundled[$(basename "$lib")]=1; done < <(find "$@" \( -type f -o -type l \) -name '*.so*' -print0)

declare -A done_libs=()
queue=(ld-linux-x86-64.so.2)
while IFS= read -r -d '' file; do
  if [[ "$(head -c4 "$file" | od -An -c | tr -d ' ')" == '177ELF' ]]; then
    while read -r soname; do
      [[ -n "$soname" && -z "${bundled[$soname]:-}" ]] && queue+=("$soname")
    done < <(needed "$file")
  fi
done < <(find "$@" -type f \( -perm -u+x -o -name '*.node' -o -name '*.so*' \) -print0)

while ((${#queue[@]} > 0)); do
  soname=${queue[0]}
  queue=("${queue[@]:1}")
  [[ -n "${done_libs[$soname]:-}" ]] && continue
  done_libs[$soname]=1
  path=$(find_lib "$soname")
  if [[ -z "$path" ]]; then
    say "no package of (${PACKAGES[*]}) provides $soname, which the staged binaries need: add its package to PACKAGES in $0" >&2
    exit 1
  fi
  real=$(readlink -f "$path")
  [[ -e "$out/$LIBDIR/$(basename "$real")" ]] || cp "$real" "$out/$LIBDIR/"
  [[ "$(basename "$real")" == "$soname" || -e "$out/$LIBDIR/$soname" ]] || ln -s "$(basename "$real")" "$out/$LIBDIR/$soname"
  while read -r next; do [[ -n "$next" ]] && queue+=("$next"); done < <(needed "$real")
done

# The Mozilla bundle as update-ca-certificates assembles it (the package ships the files; its
# maintainer script, which never runs here, would concatenate them).
if [[ ! -e "$out/etc/ssl/certs/ca-certificates.crt" ]]; then
  find "$root/usr/share/ca-certificates" -name '*.crt' -print0 | sort -z | xargs -0 cat >"$out/etc/ssl/certs/ca-certificates.crt"
fi
cp -n "$here/rootfs/etc/passwd" "$here/rootfs/etc/group" "$here/rootfs/etc/nsswitch.conf" "$out/etc/"
# What scanners (trivy, grype, syft) read to know the Debian packages inside, as distroless images do.
mkdir -p "$out/var/lib/dpkg/status.d"
for package in "${PACKAGES[@]}"; do dpkg-deb -f "$(deb_of "$package")" >"$out/var/lib/dpkg/status.d/$package"; done
chown -R 0:0 "$out" && chmod -R u+rwX,go+rX,go-w "$out"
# The processes' own state (FLOWHOOK_DATA_DIR): the runtime user's alone, as flowhook wants it.
chown 10001:10001 "$out/data" && chmod 0700 "$out/data"
chmod 1777 "$out/tmp"
say "base: ${#done_libs[@]} shared libraries ($(du -sh "$out/$LIBDIR" | cut -f1)) from ${PACKAGES[*]}"
