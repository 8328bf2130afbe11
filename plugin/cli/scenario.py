"""`autohost scenario FILE.json`: run one conformance scenario, print the result JSON."""

from __future__ import annotations

import argparse
import json
import sys

from plugin.rules.scenario import ScenarioError, parse, run


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="autohost scenario", description=__doc__)
    parser.add_argument("file", help="a scenario file (shared/conformance/README.md, GAME.md)")
    args = parser.parse_args(argv)
    try:
        with open(args.file, encoding="utf-8") as handle:
            document = json.load(handle)
    except OSError as error:
        print(f"autohost scenario: cannot read {args.file}: {error.strerror}", file=sys.stderr)
        return 2
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        print(f"autohost scenario: {args.file} is not valid JSON: {error}", file=sys.stderr)
        return 2
    try:
        result = run(parse(document))
    except ScenarioError as error:
        print(f"autohost scenario: {args.file}: {error.message}", file=sys.stderr)
        return 2
    json.dump(result, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0
