"""`ptxrun` command installed by pip (and `python -m ptxrun`): the same command line as the Rust
binary, run in-process by the Rust library."""

import sys

from . import run_cli


def main() -> None:
    sys.exit(run_cli())


if __name__ == "__main__":
    main()
