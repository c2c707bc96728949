"""``params.yaml``: its validated model (:mod:`~assay.config.params`) and the edits that keep its
comments and layout (:mod:`~assay.config.params_edit`)."""
