"""Printers for admissionregistration.k8s.io/v1: webhook configurations, admission policies and bindings.

WEBHOOKS, VALIDATIONS and MUTATIONS count the configured entries; PARAMKIND is
"apiVersion/kind" and PARAMREF "namespace/name" ("*/name" without a namespace, the selector's Go
representation when it selects by labels), `<unset>` when absent.
"""

from __future__ import annotations

import msgspec

from columns.base import ColumnDefinition, Row
from columns.declare import Entry, Meta, age_column, column, name_column, printer
from columns.format import UNSET, LabelSelector, since


class WebhookConfiguration(msgspec.Struct):
    metadata: Meta = msgspec.field(default_factory=Meta)
    webhooks: list[Entry] = []


def webhook_columns() -> list[ColumnDefinition]:
    return [name_column(),
            column("Webhooks", "Webhooks indicates the number of webhooks registered in this configuration",
                   type="integer"),
            age_column()]


def webhook_row(config: WebhookConfiguration) -> Row:
    return Row([config.metadata.name, len(config.webhooks), since(config.metadata.creationTimestamp)])


VALIDATING_WEBHOOK_CONFIGURATIONS = printer(webhook_columns(), WebhookConfiguration, webhook_row)
MUTATING_WEBHOOK_CONFIGURATIONS = printer(webhook_columns(), WebhookConfiguration, webhook_row)


class ParamKind(msgspec.Struct):
    apiVersion: str = ""
    kind: str = ""


class PolicySpec(msgspec.Struct):
    paramKind: ParamKind | None = None
    validations: list[Entry] = []
    mutations: list[Entry] = []


class Policy(msgspec.Struct):
    metadata: Meta = msgspec.field(default_factory=Meta)
    spec: PolicySpec = msgspec.field(default_factory=PolicySpec)


def param_kind(spec: PolicySpec) -> str:
    return UNSET if spec.paramKind is None else f"{spec.paramKind.apiVersion}/{spec.paramKind.kind}"


PARAM_KIND = "ParamKind specifies the kind of resources used to parameterize this policy"

VALIDATING_ADMISSION_POLICIES = printer(
    [name_column(),
     column("Validations", "Validations indicates the number of validation rules defined in this configuration",
            type="integer"),
     column("ParamKind", PARAM_KIND), age_column()],
    Policy,
    lambda p: Row([p.metadata.name, len(p.spec.validations), param_kind(p.spec), since(p.metadata.creationTimestamp)]),
)

MUTATING_ADMISSION_POLICIES = printer(
    [name_column(),
     column("Mutations", "Mutation indicates the number of mutations rules defined in this configuration",
            type="integer"),
     column("ParamKind", PARAM_KIND), age_column()],
    Policy,
    lambda p: Row([p.metadata.name, len(p.spec.mutations), param_kind(p.spec), since(p.metadata.creationTimestamp)]),
)


class ParamRef(msgspec.Struct):
    name: str = ""
    namespace: str = ""
    selector: LabelSelector | None = None


class BindingSpec(msgspec.Struct):
    policyName: str = ""
    paramRef: ParamRef | None = None


class PolicyBinding(msgspec.Struct):
    metadata: Meta = msgspec.field(default_factory=Meta)
    spec: BindingSpec = msgspec.field(default_factory=BindingSpec)


def go_selector(selector: LabelSelector) -> str:
    """A LabelSelector as its generated Go String() writes it: labels sorted, values space-separated."""
    labels = "".join(f"{key}: {selector.matchLabels[key]}," for key in sorted(selector.matchLabels))
    expressions = "".join(f"LabelSelectorRequirement{{Key:{r.key},Operator:{r.operator},Values:[{' '.join(r.values)}],}},"
                          for r in selector.matchExpressions)
    return (f"&LabelSelector{{MatchLabels:map[string]string{{{labels}}},"
            f"MatchExpressions:[]LabelSelectorRequirement{{{expressions}}},}}")


def param_ref(ref: ParamRef | None) -> str:
    if ref is None:
        return UNSET
    if ref.name:
        # Whether the param is cluster-scoped cannot be told here, so no namespace reads as any.
        return f"{ref.namespace or '*'}/{ref.name}"
    return UNSET if ref.selector is None else go_selector(ref.selector)


def binding_columns() -> list[ColumnDefinition]:
    return [name_column(),
            column("PolicyName", "PolicyName indicates the policy definition which the policy binding binded to"),
            column("ParamRef", "ParamRef indicates the param resource which sets the configuration param"),
            age_column()]


def binding_row(binding: PolicyBinding) -> Row:
    return Row([binding.metadata.name, binding.spec.policyName, param_ref(binding.spec.paramRef),
                since(binding.metadata.creationTimestamp)])


VALIDATING_ADMISSION_POLICY_BINDINGS = printer(binding_columns(), PolicyBinding, binding_row)
MUTATING_ADMISSION_POLICY_BINDINGS = printer(binding_columns(), PolicyBinding, binding_row)
