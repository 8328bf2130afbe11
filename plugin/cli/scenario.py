"""`autohost scenario FILE.json`: run one conformance scenario, print the result JSON.

Exit 0 with one JSON object on stdout; a malformed file exits 2 with one line on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys

from plugin.scenario import ScenarioError, load, run


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="autohost scenario", description=__doc__)
    parser.add_argument("file", help="a scenario file (shared/conformance/README.md, GAME.md)")
    args = parser.parse_args(argv)
    try:
        with open(args.file, "rb") as handle:
            data = handle.read()
    except OSError as error:
        print(f"autohost scenario: cannot read {args.file}: {error.strerror}", file=sys.stderr)
        return 2
    try:
        text = json.dumps(run(load(data)), allow_nan=False)
    except ScenarioError as error:
        message = " ".join(error.message.split())  # always one line
        print(f"autohost scenario: {args.file}: {message}", file=sys.stderr)
        return 2
    sys.stdout.write(text + "\n")
    return 0
