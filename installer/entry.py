"""The built application's entry point (see workbench/frozen.py for what it accepts)."""

import multiprocessing
import sys

if __name__ == "__main__":
    multiprocessing.freeze_support()  # worker processes of multiprocessing re-enter here
    from workbench.frozen import main

    sys.exit(main())
