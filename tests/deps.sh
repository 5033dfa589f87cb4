#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# Install the Debian 12 packages xdpsteer needs to build, test and demo.
# Installs only what is missing, so a warm machine pays one dpkg query.
set -euo pipefail

PKGS=(clang llvm clang-19 libbpf-dev libxdp-dev xdp-tools bpftool libelf-dev zlib1g-dev
      pkg-config gcc-multilib make iproute2 socat python3 procps ethtool util-linux
      libclang-rt-14-dev cppcheck clang-tidy-14 valgrind libjson-c-dev scdoc man-db systemd
      systemd-container
      libcurl4-openssl-dev etcd-server etcd-client bird2
      libmicrohttpd-dev prometheus curl
      tshark)
# The arm64 cross-build (make ARCH=arm64, tests/ns/test_arm64_build.sh): the
# CLI's libraries for arm64 from Debian's multiarch, and the linker. clang
# compiles it: gcc-aarch64-linux-gnu conflicts with gcc-multilib above.
PKGS+=(binutils-aarch64-linux-gnu libc6-dev:arm64 libgcc-12-dev:arm64 libbpf-dev:arm64
       libxdp-dev:arm64 libelf-dev:arm64 zlib1g-dev:arm64 libjson-c-dev:arm64
       libcurl4-openssl-dev:arm64 libmicrohttpd-dev:arm64)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages: ${missing[*]}; run as root (or: apt-get install ${missing[*]})" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
if [[ " ${missing[*]}" == *:arm64* ]] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
	dpkg --add-architecture arm64
fi
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
