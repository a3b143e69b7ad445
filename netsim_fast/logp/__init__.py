"""The LogP machine of papers/002: a message-level, event-driven machine with the stalling rule
(``machine``), running programs built as arrays (``netsim_fast.workloads.logp_program``)."""
