"""The packet engine: synchronous store-and-forward with FIFO/SRPF/LRPF/random link queues
(``state``, ``paths``, ``kernel``, ``pool``, ``rng``, ``run``), and its forwarding-rule mode
for gossip (``gossip``). ``results`` summarises and traces both. It imports no other engine,
model, config or CLI.
"""
