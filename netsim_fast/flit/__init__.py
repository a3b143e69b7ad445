"""The flit engine: wormhole and virtual cut-through routers with virtual channels and credits.

``state`` allocates the struct-of-arrays state; the pipeline stages are ``traverse``
(arrivals, link, crossbar, iq switch), ``eject``, ``route`` (routing units), ``allocate``
(output-VC allocation) and ``source`` (release, injection), on the shared operations of
``flits``; ``kernel.advance`` runs them for a batch of cycles, ``run`` is the Python loop over
batches (stop rules, error sentences), ``results`` and ``trace`` turn the final state into a
summary and an HDF5 trace. It imports only the inputs (topologies, routing, workloads' plain
arrays) and the ground floor: never another engine, a model, the config or the CLI.
"""
