"""DVC stage `code`: pipeline/code.toml → data/code/<stage>.json, the digest of the code each
stage runs (every stage depends on its own file). See assay.pipeline.code."""

from assay.core.errors import boundary
from assay.pipeline import code

if __name__ == "__main__":
    with boundary():
        changed = code.run()
        print(f"code: changed for {', '.join(changed)}" if changed else "code: no stage changed")
