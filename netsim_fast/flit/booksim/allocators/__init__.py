"""Allocators of the booksim router, one per module, on one sparse request format.

An allocation matches ``n_in`` inputs to ``n_out`` outputs. Requests come as two adjacency
lists filled by the caller: ``in_req[i, :in_n[i]]`` the outputs input ``i`` requests and
``out_req[o, :out_n[o]]`` the inputs requesting output ``o``, both ascending (BookSim2's sparse
allocators keep their request maps sorted by port); the caller also lists the inputs and the
outputs that have requests, and keeps every other count at 0. An allocator writes ``match[i]``
(the output given to input ``i``, or -1) of every requesting input and updates its persistent
pointers, which belong to the router and survive between cycles. iSLIP, which ignores
priorities, can take its requests as bit masks instead (allocators/dispatch.py, ``request_masks``).
"""
