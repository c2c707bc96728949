"""What every other package stands on: frozen records and shared vocabularies
(:mod:`~assay.core.records`), canonical JSON and sha256 (:mod:`~assay.core.digest`), the error
tree (:mod:`~assay.core.errors`), Parquet I/O (:mod:`~assay.core.tables`), the cache folder
(:mod:`~assay.core.cache`), results remembered by digest (:mod:`~assay.core.memo`), progress on
stderr (:mod:`~assay.core.progress`) and the Python a stage runs (:mod:`~assay.core.stage_code`).
"""
