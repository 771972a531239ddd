"""`python -m ferrolog ...` is the `ferrolog` command."""

from ferrolog.cli import main

if __name__ == "__main__":
    main()
