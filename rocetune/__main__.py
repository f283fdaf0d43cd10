"""``python -m rocetune``."""

from rocetune.cli import main

if __name__ == "__main__":
    main()
