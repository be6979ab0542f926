"""The patched release as an installable wheel: ``build`` (one build), ``command`` (the
``wheel`` verb: dist/, reproducibility), ``prove`` (install and run dynamo's tests)."""
