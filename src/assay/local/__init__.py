"""Open-weight models run on this machine (``provider: local``).

- ``settings``: what a profile's ``local:`` section declares (weights by sha256, prompting,
  decoding, threads, the server);
- ``weights``: the models cache (``~/.cache/assay/models/<sha256>/``), the packaged models
  ``scripts/setup`` puts there, and the hash check every use makes;
- ``runtime``: the runtime and weights identity a plan binds (llama-cpp-python's version and
  build, the GGUF's architecture and size, its chat template);
- ``server``: assay's own OpenAI-compatible server around llama-cpp-python, one request at a
  time, each from a fresh context (``python -m assay.local.server``);
- ``managed``: starting a server process on 127.0.0.1 for one run's calls, and stopping it.

The provider adapter itself is ``assay.providers.local``.
"""
