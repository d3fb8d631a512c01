"""apiextensions.k8s.io: the CustomResourceDefinition kind's own rules."""

GROUP = "apiextensions.k8s.io"
