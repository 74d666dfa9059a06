#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image.
#
# Base image: choose "Ubuntu 22.04" or "Ubuntu 24.04" in the autograder settings.
# Their python3 (3.10 and 3.12) runs the grader as it is.  On an older image this
# script installs python3.12, 3.11 or 3.10 from the image's package archive when it
# offers one, and otherwise stops with a message that says which image to choose:
# the grader needs Python 3.10 or newer.  The grader is then installed from the
# wheel beside this script, in a virtual environment of its own, and everything it
# needs from the wheels in wheels/ beside it: no package index is asked, so the
# image comes out the same whatever the index holds that day.
#
# Environment (optional): AUTOGRADER_ROOT, the autograder folder (default /autograder).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="${AUTOGRADER_ROOT:-/autograder}"
venv="$root/embed-grader-venv"

# An interpreter that is 3.10 or newer and can make a virtual environment.
usable() {
    command -v "$1" >/dev/null 2>&1 &&
        "$1" -c 'import sys; sys.exit(sys.version_info < (3, 10))' >/dev/null 2>&1 &&
        "$1" -c 'import ensurepip, venv' >/dev/null 2>&1
}

pick() {
    for candidate in python3 python3.13 python3.12 python3.11 python3.10; do
        if usable "$candidate"; then
            echo "$candidate"
            return 0
        fi
    done
    return 1
}

python="$(pick || true)"
if [ -z "$python" ] && command -v apt-get >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update || true
    # The image's own python3 first (with its venv module), then a newer minor version.
    if apt-get install -y --no-install-recommends python3 python3-venv; then
        python="$(pick || true)"
    fi
    if [ -z "$python" ]; then
        for version in 3.12 3.11 3.10; do
            if apt-get install -y --no-install-recommends "python$version" "python$version-venv"; then
                python="$(pick || true)"
                [ -n "$python" ] && break
            fi
        done
    fi
fi
if [ -z "$python" ]; then
    found="$(python3 --version 2>&1 || echo 'no python3')"
    cat >&2 <<MESSAGE
embed-grader setup: the grader needs Python 3.10 or newer with its venv module,
and this image has ${found}; none could be installed from its package archive.
Choose the base image "Ubuntu 22.04" or "Ubuntu 24.04" in the autograder
settings and upload the autograder again.
MESSAGE
    exit 1
fi

"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --no-index --find-links "$here/wheels" \
    "$here"/embed_grader-*.whl
"$venv/bin/embed-grader" --version
