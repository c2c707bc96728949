"""Export bundles: an ``abstraction/`` and a ``correctness/`` bundle per run that verify offline.

- ``selection``: which records each bundle carries, and which columns of them (published rows);
- ``manifest``: the run manifest both bundles share and each bundle's own manifest;
- ``build``: ``export_run`` writes both bundles into a new, empty destination;
- ``verify``: ``verify_bundle`` re-checks every byte and recomputes the report, offline.
"""
