"""``python -m moccuda run|info|--include-dir|--lib-dir|--build KIND|--link-flags`` (see moccuda.cli)."""

from moccuda.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
