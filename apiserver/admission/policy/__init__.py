"""Admission policies (ValidatingAdmissionPolicy, MutatingAdmissionPolicy) evaluated with CEL."""
