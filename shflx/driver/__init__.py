"""The edges that drive the core: the compile pipelines (amd, nvidia), the report both produce, compile
inputs, the persistent plan store around match.lower / chains.synthesize, coverage runs."""
