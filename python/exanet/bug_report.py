"""What the command line leaves behind when exanet itself fails: one JSON file with everything
a maintainer needs to reproduce the failure (README, "When exanet fails")."""

from __future__ import annotations

import json
import platform
import sys
import traceback
from pathlib import Path
from typing import Any

import exanet

BUG_REPORT_NAME = "exanet-bug-report.json"


def write_bug_report(
    directory: Path, error: BaseException, config_file: Path | None, core_config: Any
) -> Path | None:
    """Write the bug report into `directory` (created if needed); None if it cannot be
    written, so that reporting a bug never raises a second error."""
    config_text = None
    if config_file is not None:
        try:
            config_text = config_file.read_text(encoding="utf-8", errors="replace")
        except OSError:
            config_text = None
    report = {
        "exanet_version": exanet.__version__,
        "python": sys.version,
        "platform": platform.platform(),
        "command": sys.argv,
        "error": f"{type(error).__name__}: {error}",
        "traceback": traceback.format_exception(error),
        "config_file": str(config_file) if config_file else None,
        "config_text": config_text,
        "core_config": core_config,
    }
    path = directory / BUG_REPORT_NAME
    try:
        directory.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(report, indent=2, default=str) + "\n", encoding="utf-8")
    except OSError:
        return None
    return path
