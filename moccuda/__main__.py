"""``python -m moccuda --include-dir | --lib-dir | --build [static|shared]``: print paths."""

import argparse

from moccuda import build


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m moccuda", description="Find or build the MocCUDA runtime.")
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--include-dir", action="store_true", help="print the header directory")
    group.add_argument("--lib-dir", action="store_true", help="print the library directory (building it)")
    group.add_argument("--build", choices=["static", "shared"], help="build the library and print its path")
    args = parser.parse_args()
    if args.include_dir:
        print(build.include_dir())
    elif args.lib_dir:
        print(build.build("static").parent)
    else:
        print(build.build(args.build))
    return 0


raise SystemExit(main())
