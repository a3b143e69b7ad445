"""Studies: experiments that compose engines with closed forms or with each other.

Total exchange read against its bisection bound (``total_exchange``), phased BSP programs
(``phased``), BSP/LogP parameter fits (``params``), gossip runs against the theorems
(``gossip``), LogP protocols on the LogP machine (``logp``), and the random-regular-graph model
beside simulation (``rrg_compare``). One floor above the engines and the models, which never
import a study.
"""
