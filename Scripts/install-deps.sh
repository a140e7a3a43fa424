#!/usr/bin/env bash
# Installs the Debian 12 packages Tessera builds, runs and tests with. Idempotent and quiet when
# everything is present; needs root (or sudo) otherwise.
set -euo pipefail
packages=(pkg-config ffmpeg libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libswresample-dev
          libavfilter-dev libzmq3-dev libvulkan-dev mesa-vulkan-drivers glslc vulkan-tools libsqlite3-dev sqlite3 time
          python3-yaml python3-venv systemd iproute2 binutils prometheus tmux chromium)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# The Dockerfile test asks apt-cache about the image's packages: it needs package lists.
if ! compgen -G "/var/lib/apt/lists/*_Packages" >/dev/null; then
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
fi
if [ ${#missing[@]} -gt 0 ]; then
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "installing: ${missing[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# Deploy/ tests: kubernetes-validate (PyPI, bundled schemas, works offline) in its own virtual environment.
K8S_VALIDATE_VERSION=1.37.0
tools=/opt/tessera-tools
if [ "$("$tools/bin/kubernetes-validate" --version 2>/dev/null)" != "$K8S_VALIDATE_VERSION" ] \
   || [ ! -e /usr/local/bin/kubernetes-validate ]; then
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "installing: kubernetes-validate $K8S_VALIDATE_VERSION into $tools"
    $sudo /usr/bin/python3 -m venv "$tools"
    $sudo "$tools/bin/pip" install -q "kubernetes-validate==$K8S_VALIDATE_VERSION"
    $sudo ln -sf "$tools/bin/kubernetes-validate" /usr/local/bin/kubernetes-validate
fi
# API conformance tests: schemathesis (PyPI) against Protocols/openapi.yaml, in the same environment.
SCHEMATHESIS_VERSION=4.32.5
if [ "$("$tools/bin/schemathesis" --version 2>/dev/null)" != "schemathesis, version $SCHEMATHESIS_VERSION" ] \
   || [ ! -e /usr/local/bin/schemathesis ]; then
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "installing: schemathesis $SCHEMATHESIS_VERSION into $tools"
    [ -x "$tools/bin/pip" ] || $sudo /usr/bin/python3 -m venv "$tools"
    $sudo "$tools/bin/pip" install -q "schemathesis==$SCHEMATHESIS_VERSION"
    $sudo ln -sf "$tools/bin/schemathesis" /usr/local/bin/schemathesis
fi
# Composition tests: OpenTimelineIO (PyPI) writes the .otio timelines `--spec` imports, in the same environment.
OTIO_VERSION=0.18.1
if ! "$tools/bin/python" -c "import opentimelineio, sys; sys.exit(opentimelineio.__version__ != '$OTIO_VERSION')" \
     2>/dev/null; then
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "installing: opentimelineio $OTIO_VERSION into $tools"
    [ -x "$tools/bin/pip" ] || $sudo /usr/bin/python3 -m venv "$tools"
    $sudo "$tools/bin/pip" install -q "opentimelineio==$OTIO_VERSION"
fi
# Streaming package tests: Python's HLS and DASH parsers (m3u8, mpegdash) read what `--package` writes.
M3U8_VERSION=6.0.0
MPEGDASH_VERSION=0.4.1
if ! "$tools/bin/python" -c "import m3u8, mpegdash, importlib.metadata as m, sys; \
sys.exit(m.version('m3u8') != '$M3U8_VERSION' or m.version('mpegdash') != '$MPEGDASH_VERSION')" 2>/dev/null; then
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "installing: m3u8 $M3U8_VERSION, mpegdash $MPEGDASH_VERSION into $tools"
    [ -x "$tools/bin/pip" ] || $sudo /usr/bin/python3 -m venv "$tools"
    $sudo "$tools/bin/pip" install -q "m3u8==$M3U8_VERSION" "mpegdash==$MPEGDASH_VERSION"
fi
# Dashboard tests: Playwright drives Debian's chromium (it cannot download its own browser here), and
# axe-playwright-python checks accessibility; both in the same environment.
PLAYWRIGHT_VERSION=1.65.2
AXE_PLAYWRIGHT_VERSION=0.1.8
if ! "$tools/bin/python" -c "import playwright, axe_playwright_python, importlib.metadata as m, sys; \
sys.exit(m.version('playwright') != '$PLAYWRIGHT_VERSION' or m.version('axe-playwright-python') != '$AXE_PLAYWRIGHT_VERSION')" \
   2>/dev/null; then
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "installing: playwright $PLAYWRIGHT_VERSION, axe-playwright-python $AXE_PLAYWRIGHT_VERSION into $tools"
    [ -x "$tools/bin/pip" ] || $sudo /usr/bin/python3 -m venv "$tools"
    $sudo "$tools/bin/pip" install -q "playwright==$PLAYWRIGHT_VERSION" "axe-playwright-python==$AXE_PLAYWRIGHT_VERSION"
fi
if ! command -v swift >/dev/null && [ ! -x /opt/swift/usr/bin/swift ]; then
    echo "Swift 6.1+ is required (expected at /opt/swift/usr/bin or on PATH)" >&2
    exit 1
fi
