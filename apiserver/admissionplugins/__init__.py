"""The default admission plugins of kube-apiserver 1.36 that decide on stored state: LimitRanger,
ResourceQuota and PodSecurity.

Each plugin is pure: the request (`request.Request`), the object and the stored objects it needs go in,
a mutation, a refusal (an ApiError with upstream's message and code) or warnings come out. The write
path gathers the stored state and calls them in upstream's plugin order.
"""
