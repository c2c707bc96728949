"""DVC stage `image`: the sandbox images in the daemon, their ids in data/image/<kind>.json.

python stages/image.py [KIND ...]     (kinds: standard, packages; default: standard)
"""

import sys

from assay.core.errors import boundary
from assay.pipeline import image

if __name__ == "__main__":
    with boundary():
        for record in image.run(sys.argv[1:] or ["standard"]):
            print(
                f"image {record.kind} {record.image_id} python {record.python_version}",
                file=sys.stderr,
            )
