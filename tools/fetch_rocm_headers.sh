#!/usr/bin/env bash
# Fetch Debian's ROCm -dev packages into a private prefix (never into the system).
# usage: tools/fetch_rocm_headers.sh SUITE DEST      (SUITE: sid, trixie or bookworm)
# Prints the prefix (DEST/usr) on success. Uses a private apt state so the
# system's sources, lists and dpkg database are left untouched.
set -euo pipefail
suite=${1:?suite}; dest=${2:?dest}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/etc/preferences.d" "$dest"
echo "deb http://deb.debian.org/debian $suite main" > "$work/sources.list"
touch "$work/status"
apt_opts=(-o Dir::Etc::SourceList="$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
          -o Dir::Etc::PreferencesParts="$work/etc/preferences.d"
          -o Dir::State::Lists="$work/lists" -o Dir::Cache="$work/cache"
          -o Dir::State::Status="$work/status" -o APT::Architecture=amd64
          -o Debug::NoLocking=1 -qq)
apt-get "${apt_opts[@]}" update >&2
# The 8 libraries' -dev packages (plus what their headers include). Names differ per suite,
# so take each that the suite has.
want="libamdhip64-dev libhipblas-dev libhipblas-common-dev libhiprand-dev librocrand-dev
      libhipsparse-dev libhipfft-dev libhipsolver-dev librccl-dev"
have=()
for p in $want; do
  if apt-cache "${apt_opts[@]}" show "$p" >/dev/null 2>&1; then have+=("$p"); fi
done
(cd "$work" && apt-get "${apt_opts[@]}" download "${have[@]}" >&2)
for deb in "$work"/*.deb; do dpkg-deb -x "$deb" "$dest"; done
(cd "$work" && ls *.deb) > "$dest/PACKAGES"
echo "$dest/usr"
