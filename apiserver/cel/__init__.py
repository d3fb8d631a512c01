"""CEL as kube-apiserver runs it."""
