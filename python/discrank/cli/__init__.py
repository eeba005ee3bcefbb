"""The ``discrank`` command line: one module per command, each with ``add(sub)`` (its parser) and ``run(args)``."""

from __future__ import annotations

import sys
from typing import Optional, Sequence

from discrank.cli import arena, demo, evaluate, fit, info, plot, predict
from discrank.cli._args import Parser, UsageError

__all__ = ["COMMANDS", "main"]

#: The commands, in the order of ``discrank --help``.
COMMANDS = (demo, fit, evaluate, predict, info, plot, arena)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the ``discrank`` command line; returns the exit status (0, 2 for an error, 3 for a bug)."""
    parser = Parser(prog="discrank", description="Ratings for two-player zero-sum games.")
    sub = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.add(sub)
    try:
        args = parser.parse_args(argv)
    except UsageError as exc:
        print(f"discrank: error: {exc}", file=sys.stderr)
        return 2
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("discrank: interrupted", file=sys.stderr)
        return 130
    except (ValueError, TypeError, OSError, ImportError, KeyError) as exc:
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        print(f"discrank: error: {message}", file=sys.stderr)
        return 2
    except MemoryError as exc:  # an input too large for this machine: not a bug
        print(f"discrank: error: out of memory{f' ({exc})' if str(exc) else ''}: the input is too large for this "
              "machine's memory", file=sys.stderr)
        return 2
    except Exception as exc:  # a bug of discrank: still one line, and what to report
        message = str(exc).splitlines()[0] if str(exc) else ""
        print(f"discrank: error: internal error {type(exc).__name__}: {message} (please report it)", file=sys.stderr)
        return 3



if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
