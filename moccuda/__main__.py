"""``python -m moccuda --include-dir | --lib-dir | --build [static|shared|cublas] | --link-flags``.

Prints where MocCUDA's headers are, or builds the library (if needed) and prints where it is, e.g.
``g++ -fopenmp -I$(python -m moccuda --include-dir) app.cpp $(python -m moccuda --link-flags)``.
"""

import argparse
import sys

from moccuda import build


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m moccuda", description="Find or build the MocCUDA runtime.")
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--include-dir", action="store_true", help="print the header directory")
    group.add_argument("--lib-dir", action="store_true", help="print the library directory (building it)")
    group.add_argument("--build", nargs="?", const="static", choices=["static", "shared", "cublas"],
                       help="build the library (default: static) and print its path")
    group.add_argument("--link-flags", action="store_true",
                       help="print what a link needs after its objects (building the library)")
    args = parser.parse_args(argv)
    try:
        if args.include_dir:
            print(build.include_dir())
        elif args.lib_dir:
            print(build.build("static").parent)
        elif args.link_flags:
            print(" ".join(build.link_flags()))
        else:
            print(build.build(args.build))
    except build.BuildError as exc:
        print(exc, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
