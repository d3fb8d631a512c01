"""The default admission plugins of kube-apiserver 1.36 that decide on stored state: LimitRanger,
ResourceQuota and PodSecurity above all.

Each plugin is pure: the request (`request.Request`), the object and the stored objects it needs go in,
a mutation, a refusal (an ApiError with upstream's message and code) or warnings come out.
`registered` hangs them on the admission chain (apiserver/admission), which runs them in upstream's
plugin order; RuntimeClass, PersistentVolumeClaimResize and CertificateSubjectRestriction are here too.
"""
