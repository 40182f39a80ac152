#!/usr/bin/env bash
# One-step setup for a fresh machine: Debian packages the real components need, npm packages, and a build.
# Idempotent: a second run only checks and exits quickly.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages: bubblewrap + Debian's CPython with numpy/pandas/matplotlib (and requests, which the egress
# proxy test calls through) for the code sandbox; mitmproxy as the egress-proxy benchmark's reference.
debian_packages=(bubblewrap python3 python3-numpy python3-pandas python3-matplotlib python3-requests mitmproxy)
# libseccomp's Python binding: the interpreter service compiles its sandbox's seccomp filter with it at start.
debian_packages+=(python3-seccomp)
# What the coding agent's shell reads code with (the sandbox sees the host's read-only /usr).
debian_packages+=(git ripgrep tree jq)
# chromium for the web UI's browser tests and benchmark (driven by playwright-core, which downloads no browser).
debian_packages+=(chromium)
# Redis for the server replicas' shared state and queue, HAProxy in front of replicas in the scale-out test and benchmark.
debian_packages+=(redis-server haproxy)
missing=()
for package in "${debian_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "setup: installing Debian packages: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "setup: missing Debian packages (install them as root): ${missing[*]}" >&2
  fi
fi

# npm packages, exactly as locked. Node 24 comes in as a dev dependency (the machine may have Node 20).
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi

# Compiled output, so `import('toolbus')` works with any Node >= 22 (and the bins run without type stripping),
# and the web UI's static files (apps/web/dist), which toolbus serve serves at /.
npm run --silent build
