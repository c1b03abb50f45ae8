# Shared steps of scripts/run and scripts/test: install what is missing, build
# the web UI. Sourced, not run. Each step checks first, so a second run on a
# ready machine installs nothing and needs no network.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export PATH="$PATH:/usr/local/go/bin:$HOME/go/bin"
GO_MIN=1.26
NODE_MIN=20.19

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# version_ge A B: is version A at least B?
version_ge() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]; }

as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
		die "need root to run: $* (install sudo or run as root)"
	fi
}

apt_updated=""
# ensure_packages PKG...: install the Debian/Ubuntu packages that are missing.
ensure_packages() {
	local missing=()
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	command -v apt-get >/dev/null || die "missing system packages: ${missing[*]} (install them with your package manager)"
	say "installing ${missing[*]} (apt-get; this can take a few minutes)"
	if [ -z "$apt_updated" ]; then as_root apt-get update -qq; apt_updated=1; fi
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

ensure_go() {
	if ! command -v go >/dev/null; then
		ensure_packages golang-go ca-certificates
	fi
	local v
	v=$(go env GOVERSION | sed 's/^go//')
	if ! version_ge "$v" "$GO_MIN"; then
		# Go 1.21 and later fetch the toolchain go.mod asks for through the module proxy.
		say "Go $v is older than $GO_MIN: using the toolchain go.mod names (downloaded once)"
		export GOTOOLCHAIN=auto
		go version >/dev/null || die "Go $GO_MIN or newer is needed (https://go.dev/doc/install)"
	fi
}

ensure_node() {
	if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
		ensure_packages nodejs npm
	fi
	local v
	v=$(node --version | sed 's/^v//')
	version_ge "$v" "$NODE_MIN" || die "Node.js $NODE_MIN or newer is needed to build the web UI (found $v)"
}

# build_frontend installs the UI's packages when the lock file changed and
# builds it into frontend/dist, which the Go binary embeds.
build_frontend() {
	cd "$ROOT/frontend"
	if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
		say "installing the web UI's packages (npm ci; a minute or two the first time)"
		npm ci --no-audit --no-fund --loglevel=error
	fi
	say "building the web UI"
	npm run --silent build >/dev/null
	cd "$ROOT"
}

# Packages the desktop window is built against (Wails v2 on Linux).
DESKTOP_PACKAGES=(gcc pkg-config libgtk-3-dev libwebkit2gtk-4.1-dev)
DESKTOP_TAGS=desktop,production,webkit2_41
# What the end-to-end tests drive: Debian's Chromium for the web UI, a
# virtual display with screenshot and window tools for the desktop window.
E2E_PACKAGES=(chromium xvfb xauth imagemagick xdotool)
# Text recognition (OCR) of scans and photos: Tesseract 5 with English and
# German language data (another language: tesseract-ocr-LANG, and
# DOCENT_OCR_LANG or --lang). PDF pages are rendered inside the binary.
OCR_PACKAGES=(tesseract-ocr tesseract-ocr-eng tesseract-ocr-deu)
