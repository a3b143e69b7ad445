"""The LogP machine of papers/002: a message-level, event-driven machine with the stalling rule
(``machine``, its clock), running programs built as arrays (``netsim_fast.workloads.logp_program``)
that ``run`` loads into it."""
