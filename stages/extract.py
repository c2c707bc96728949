"""DVC stage `extract`: responses → candidate sources."""

import sys

from assay.pipeline import extract

if __name__ == "__main__":
    extract.run(sys.argv[1])
