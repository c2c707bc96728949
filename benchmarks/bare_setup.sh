#!/usr/bin/env bash
# `scripts/setup study` on a bare Debian machine, timed step by step: a minimal root filesystem
# made with debootstrap (this machine's Debian release, debootstrap's default mirror, plus only
# python3), a fresh `git clone` of a branch copied in, every cache (apt, uv, pip, npm, assay)
# empty. It runs in a chroot with /proc, /sys and /dev bind-mounted and the host's Docker
# socket bind-mounted (so an engine answers: starting one is measured elsewhere, seconds).
#
#   benchmarks/bare_setup.sh [REPOSITORY [BRANCH]]     (as root; default: this checkout, HEAD)
#
# Prints setup's own lines (seconds since it started, per step), its wall time and the load
# average before and after. The debootstrap root is made once into $ASSAY_BARE_TEMPLATE
# (default /var/tmp/assay-bare/template, ~260 MB, not part of the figure) and copied per run; the
# run's copy is removed afterwards (keep it with ASSAY_BARE_KEEP=1). Package services never start
# inside the chroot (policy-rc.d), so the host's engine is the one that answers.
#
# The machine's trust store is passed on as this machine passes it (SSL_CERT_FILE and friends),
# so registries answer as they do here. Nothing else of the host's configuration goes in: no
# pip or uv index, no local wheel folder.
set -euo pipefail
{ # read whole before it runs: an edit of this file during a run changes nothing
[ "$(id -u)" -eq 0 ] || { echo "run as root (debootstrap, chroot, mounts)" >&2; exit 1; }

repository="$(realpath "${1:-$(dirname "$0")/..}")"
branch="${2:-$(git -C "$repository" rev-parse --abbrev-ref HEAD)}"
base="${ASSAY_BARE_BASE:-/var/tmp/assay-bare}"
template="${ASSAY_BARE_TEMPLATE:-$base/template}"
# shellcheck source=/dev/null
codename="$(. /etc/os-release && echo "$VERSION_CODENAME")"
mkdir -p "$base"

if [ ! -x "$template/usr/bin/python3" ]; then
  echo "debootstrap $codename (minbase + python3) into $template" >&2
  rm -rf "$template.partial"
  debootstrap --variant=minbase --include=python3 "$codename" "$template.partial" >&2
  mv "$template.partial" "$template"
fi

root="$(mktemp -d "$base/run-XXXXXX")"
mounts=()
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
  local index
  for ((index = ${#mounts[@]} - 1; index >= 0; index--)); do umount -R -l "${mounts[index]}" 2>/dev/null || true; done
  for mount in "${mounts[@]}"; do
    if mountpoint -q "$mount"; then echo "$mount is still mounted: $root is left in place" >&2; return; fi
  done
  if [ -z "${ASSAY_BARE_KEEP:-}" ]; then rm -rf --one-file-system "$root"; else echo "kept: $root" >&2; fi
}
trap cleanup EXIT

cp -a "$template/." "$root/"
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d" && chmod +x "$root/usr/sbin/policy-rc.d"
cp /etc/resolv.conf "$root/etc/resolv.conf"
trust=/etc/ssl/host-trust.crt  # the host's bundle, beside the chroot's own (which apt may rewrite)
mkdir -p "$root/etc/ssl" && cp "${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}" "$root$trust"
git clone --quiet --branch "$branch" "$repository" "$root/root/assay"
for folder in proc sys dev; do mount --rbind "/$folder" "$root/$folder"; mounts+=("$root/$folder"); done
socket="${DOCKER_HOST:-unix:///var/run/docker.sock}"
socket="${socket#unix://}"
touch "$root/run/docker.sock"
mount --bind "$socket" "$root/run/docker.sock"
mounts+=("$root/run/docker.sock")

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)  (cores: $(nproc))" >&2
echo "commit: $(git -C "$root/root/assay" rev-parse --short HEAD) ($branch)" >&2
start=$(date +%s%N)
status=0
chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  SSL_CERT_FILE="$trust" PIP_CERT="$trust" REQUESTS_CA_BUNDLE="$trust" CURL_CA_BUNDLE="$trust" \
  NODE_EXTRA_CA_CERTS="$trust" GIT_SSL_CAINFO="$trust" \
  /bin/bash -c 'cd /root/assay && scripts/setup study' || status=$?
end=$(date +%s%N)
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
printf 'bare scripts/setup study: %s s wall, exit %s\n' "$(awk -v ns=$((end - start)) 'BEGIN { printf "%.1f", ns / 1e9 }')" "$status" >&2
exit "$status"
}
