"""DVC stage `snapshot`: fixtures/codebase/sources.toml → data/snapshot/<slice>/ (pinned,
hash-checked public code; a tampered or mismatched sdist fails the stage naming the source)."""

import sys

from assay.fixtures.snapshot import main

if __name__ == "__main__":
    sys.exit(main([]))
