"""The flit engine: wormhole and virtual cut-through routers with virtual channels and credits.

``state`` allocates the struct-of-arrays state, ``stages`` holds the per-router pipeline
stages, ``kernel.advance`` moves every flit for a batch of cycles, ``run`` is the Python loop
over batches (stop rules, error sentences), ``results`` and ``trace`` turn the final state into
a summary and an HDF5 trace. It imports only the inputs (topologies, routing, workloads' plain
arrays) and the ground floor: never another engine, a model, the config or the CLI.
"""
