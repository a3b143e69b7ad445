"""BookSim2's input-queued router for the flit engine (``--router booksim``).

A router of its own, beside the flit engine's ``lanes`` and ``iq``: its state
(``state.py``), its stages (``router.py``: input queuing, routing, VC and switch allocation,
crossbar, output FIFOs), its terminals (``terminal.py``), its routing (``routing.py``), its
allocators (``allocators/``, one per module) and its kernel (``kernel.py``); ``driver.py`` joins
it to the flit engine's run loop (flit/run.py). Behaviour: docs/booksim-router.md; options:
docs/booksim-keys.md.
"""
