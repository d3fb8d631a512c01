"""Server-side printing: the Table columns and rows of each kind, computed from stored bytes.

`columns.registry.printer_for(group, kind)` gives a kind's Printer (see `columns.base`): its
column definitions and a row function over the stored JSON. Built-in printers live one module
per API group (core, pods, events, storage, apps, batch, networking, autoscaling, policy, rbac,
admissionregistration, scheduling, node, certificates, flowcontrol, resource, other); they share the
formatting rules in `format` and the declaration helpers in `declare`, and read the bytes through
the one seam in `decode`. CRD printer columns live in `crd` and `jsonpath`.
"""
