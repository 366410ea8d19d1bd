#!/usr/bin/env bash
# Installs exanet with its test tools, then runs every check: formatting and lints (Rust and
# Python), the Rust test suite and the Python test suite. This is the README's test command and
# exactly what CI runs (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."

# headless Chromium renders the HTML report in tests/python/test_plots_report.py
command -v chromium >/dev/null || {
    sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq && $sudo apt-get install -y -qq --no-install-recommends chromium
}
python3 -m pip install --quiet --disable-pip-version-check '.[test]'

cargo fmt --all --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test -p exanet-core --locked

ruff format --check python tests examples
ruff check python tests examples
python3 -m pytest tests/python
