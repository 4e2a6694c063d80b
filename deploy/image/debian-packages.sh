# Sourced by stage-base.sh and stage-lite.sh: Debian packages as files, from the build host's apt
# sources (its suite, bookworm here). The version is the one apt resolves now, so the same mirror
# state gives the same files; each is downloaded once into <work>/debs and recorded, "name
# version" per line, in the file the caller names (for the SBOM).

candidate() { apt-cache policy "$1" | sed -n 's/^  Candidate: //p'; }
deb_of() { compgen -G "$DEBS/${1}_$(candidate "$1" | sed 's/:/%3a/')_*.deb" | head -1; }

# unpack_debs <work> <into dir> <record file> <package>...
unpack_debs() {
  local work=$1 into=$2 record=$3 package version
  shift 3
  DEBS="$work/debs"
  mkdir -p "$DEBS" "$into"
  for package in "$@"; do
    version=$(candidate "$package")
    if [[ -z "$version" || "$version" == "(none)" ]]; then
      printf 'image: apt knows no candidate for %s: run apt-get update (the image takes Debian packages from the host'"'"'s apt sources)\n' "$package" >&2
      return 1
    fi
    [[ -n "$(deb_of "$package")" ]] || (cd "$DEBS" && apt-get download -q -o APT::Sandbox::User=root "$package=$version" >&2)
    dpkg-deb -x "$(deb_of "$package")" "$into"
    echo "$package $version" >>"$record"
  done
}
