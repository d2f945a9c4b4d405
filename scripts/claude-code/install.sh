#!/usr/bin/env bash
# Install the pinned Claude Code (scripts/claude-code/VERSION) into .cache/claude-code/<version>/,
# a git-ignored cache, for the real-client tests in test/claude-code/. Not a devDependency: the
# package carries a native binary of about 400 MB that an ordinary `npm install` of this project must not
# download. Run it again at any time: an installed, working copy is kept.
#
# The tests also need a network namespace with loopback only (`unshare -n` and `ip`); as root,
# missing util-linux or iproute2 are installed with apt-get.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
version="${CLAUDE_CODE_VERSION:-$(tr -d '[:space:]' < "$here/VERSION")}"
prefix="$root/.cache/claude-code/$version"
wrapper="$prefix/node_modules/@anthropic-ai/claude-code"

works() { [ -x "$1" ] && "$1" --version 2>/dev/null | grep -q "^$version "; }

if ! command -v unshare >/dev/null 2>&1 || ! command -v ip >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends iproute2 util-linux
  else
    echo "install.sh: unshare and ip (util-linux, iproute2) are needed to run Claude Code offline; install them" >&2
  fi
fi

if ! works "$wrapper/bin/claude.exe"; then
  mkdir -p "$prefix"
  # --prefix keeps it out of the project's own node_modules and package-lock.json.
  npm install --prefix "$prefix" --no-save --no-audit --no-fund --no-package-lock "@anthropic-ai/claude-code@$version"
  # npm versions that hold back install scripts leave the wrapper's placeholder in place: run the
  # package's own postinstall, which copies the platform's native binary over it.
  if ! works "$wrapper/bin/claude.exe"; then (cd "$wrapper" && node install.cjs); fi
fi

if ! works "$wrapper/bin/claude.exe"; then
  echo "install.sh: $wrapper/bin/claude.exe does not run as Claude Code $version" >&2
  exit 1
fi
"$wrapper/bin/claude.exe" --version
