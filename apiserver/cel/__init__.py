"""CEL as kube-apiserver runs it, on cel-expr-python (Google's C++ runtime).

`environment` compiles (type-checked against declared types, cached per expression and types) and
evaluates (on an activation of plain decoded values); `declared` turns a structural schema into the
types to check against and the values to bind; `library`, `quantity`, `netlib`, `formats` and `authz`
are Kubernetes' CEL libraries (`optionals` carries the optional results cel-expr-python cannot
return, `requesturi` is Go's URL parsing); `macros` brings cel-go's two-variable comprehensions and
`sortBy`, whose functions are `macroruntime`'s; `cost` and `checkedexpr` give cel-go's static cost
estimate. Callers: CRD rules (apiserver/kinds/crvalidations.py, crrulechecks.py), admission policies
(apiserver/admission/policy/) and webhooks' matchConditions.
"""
