"""Slow, obvious LogP machine: one Python loop iteration per time step, lists and dicts.

Written from the event semantics in netsim_fast/logp/machine.py's docstring (phases A-D
per step, FIFO acceptance, idle-time background acquisitions that never delay the program),
not from the kernel's code. Small programs only.
"""

from netsim_fast.workloads.logp_program import (OP_BACKGROUND, OP_COMPUTE, OP_RECV, OP_RECV_ALL,
                                             OP_SEND, OP_SET_REG, OP_WAIT_ALIGN, OP_WAIT_REG,
                                             OP_WAIT_UNTIL)

INF = float("inf")


def run_naive(prog, L, o, G, delay, t_max=100000):
    p = len(prog.op_ptr) - 1
    m = len(prog.msg_src)
    cap = -(-L // G)
    ops = [[(int(prog.op_code[k]), int(prog.op_a[k]), int(prog.op_b[k]))
            for k in range(prog.op_ptr[i], prog.op_ptr[i + 1])] for i in range(p)]
    box_size = [int(prog.box_ptr[b + 1] - prog.box_ptr[b]) for b in range(len(prog.box_owner))]
    arrived = {b: [] for b in range(len(box_size))}   # delivered, not yet taken
    taken = {b: 0 for b in range(len(box_size))}
    submit, accept, deliver, acquire = [-1] * m, [-1] * m, [-1] * m, [-1] * m
    payload = [0] * m
    in_transit = []                                   # msg ids
    waiting = {d: [] for d in range(p)}               # FIFO of submitted msgs per destination
    proc = [dict(pc=0, busy_end=None, busy=None, msg=None, stalled=None, last_send=-INF,
                 last_acq=-INF, bg=-1, reg=0, done=None, stall=0, late=0) for _ in range(p)]

    def acquire_from(s, box, t):
        msg = arrived[box].pop(0)
        taken[box] += 1
        s.update(last_acq=t, busy="acq", msg=msg, busy_end=t + o)
        return msg

    def idle(s, t, next_start):
        box = s["bg"]
        if box >= 0 and arrived[box] and t >= s["last_acq"] + G and t + o <= next_start:
            acquire_from(s, box, t)

    t = 0
    while t <= t_max:
        for msg in sorted(x for x in in_transit if accept[x] + delay[x] == t):   # A
            in_transit.remove(msg)
            deliver[msg] = t
            arrived[int(prog.msg_box[msg])].append(msg)
        for i, s in enumerate(proc):                                           # B
            if s["busy"] is not None and s["busy_end"] == t:
                if s["busy"] == "send":
                    submit[s["msg"]] = t
                    waiting[int(prog.msg_dst[s["msg"]])].append(s["msg"])
                    s["stalled"] = s["msg"]
                elif s["busy"] == "acq":
                    acquire[s["msg"]] = t
                s["busy"] = None
        for d in range(p):                                                     # C
            while waiting[d] and sum(1 for x in in_transit if prog.msg_dst[x] == d) < cap:
                msg = waiting[d].pop(0)
                accept[msg] = t
                in_transit.append(msg)
                src = proc[int(prog.msg_src[msg])]
                src["stall"] += t - submit[msg]
                src["stalled"] = None
        for i, s in enumerate(proc):                                           # D
            while s["done"] is None and s["busy"] is None and s["stalled"] is None:
                if s["pc"] == len(ops[i]):
                    s["done"] = t
                    break
                code, a, b = ops[i][s["pc"]]
                if code == OP_COMPUTE:
                    s["pc"] += 1
                    if a > 0:
                        s.update(busy="compute", busy_end=t + a)
                elif code == OP_SET_REG:
                    s["reg"] = t + a
                    s["pc"] += 1
                elif code == OP_BACKGROUND:
                    s["bg"] = a
                    s["pc"] += 1
                elif code in (OP_WAIT_UNTIL, OP_WAIT_REG, OP_WAIT_ALIGN):
                    if code == OP_WAIT_ALIGN:
                        target = t
                        while target % a != b:
                            target += 1
                    else:
                        target = a if code == OP_WAIT_UNTIL else s["reg"] + a
                    if target > t:
                        idle(s, t, target)
                        break
                    s["pc"] += 1
                    if target < t and code != OP_WAIT_ALIGN:
                        s["late"] += 1
                elif code == OP_SEND:
                    if t < s["last_send"] + G:
                        idle(s, t, s["last_send"] + G)
                        break
                    if b == 1:
                        payload[a] = s["reg"]
                    s.update(last_send=t, busy="send", msg=a, busy_end=t + o)
                    s["pc"] += 1
                else:
                    if code == OP_RECV_ALL and taken[a] == box_size[a]:
                        s["pc"] += 1
                        continue
                    if arrived[a]:
                        if t >= s["last_acq"] + G:
                            msg = acquire_from(s, a, t)
                            if code == OP_RECV:
                                s["pc"] += 1
                                if b == 1:
                                    s["reg"] = payload[msg]
                        break
                    idle(s, t, INF)
                    break
        if all(s["done"] is not None for s in proc):
            return dict(time=max(s["done"] for s in proc), finish=[s["done"] for s in proc],
                        stall=[s["stall"] for s in proc], late=[s["late"] for s in proc],
                        submit=submit, accept=accept, deliver=deliver, acquire=acquire)
        t += 1
    raise RuntimeError("naive LogP run did not finish")
