"""CEL as kube-apiserver runs it, on cel-expr-python (Google's C++ runtime).

`environment` compiles (type-checked against declared types, cached per expression and types) and
evaluates (on an activation of plain decoded values); `declared` turns a structural schema into the
types to check against and the values to bind; `library`, `quantity` and `netlib` are Kubernetes'
CEL libraries; `cost` and `checkedexpr` give cel-go's static cost estimate. Callers: CRD rules
(apiserver/kinds/crvalidations.py, crrulechecks.py) and admission policies (apiserver/admission/policy/).
"""
