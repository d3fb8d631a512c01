"""Printers for flowcontrol.apiserver.k8s.io/v1 FlowSchemas and PriorityLevelConfigurations.

MISSINGPL is the status of the FlowSchema's Dangling condition ("?" before the server sets it).
A PriorityLevelConfiguration's numbers are JSON numbers for a Limited level and `<none>` for an
Exempt one (or a Limited one without queuing).
"""

from __future__ import annotations

import msgspec

from columns.base import Cell, Row
from columns.declare import Meta, age_column, column, name_column, printer
from columns.format import NONE, since


class PriorityLevelReference(msgspec.Struct):
    name: str = ""


class DistinguisherMethod(msgspec.Struct):
    type: str = ""


class FlowSchemaSpec(msgspec.Struct):
    priorityLevelConfiguration: PriorityLevelReference = msgspec.field(default_factory=PriorityLevelReference)
    matchingPrecedence: int = 0
    distinguisherMethod: DistinguisherMethod | None = None


class Condition(msgspec.Struct):
    type: str = ""
    status: str = ""


class FlowSchemaStatus(msgspec.Struct):
    conditions: list[Condition] = []


class FlowSchema(msgspec.Struct):
    metadata: Meta = msgspec.field(default_factory=Meta)
    spec: FlowSchemaSpec = msgspec.field(default_factory=FlowSchemaSpec)
    status: FlowSchemaStatus = msgspec.field(default_factory=FlowSchemaStatus)


def dangling(conditions: list[Condition]) -> str:
    for condition in conditions:
        if condition.type == "Dangling":
            return condition.status
    return "?"


def flow_schema_row(fs: FlowSchema) -> Row:
    spec = fs.spec
    method = NONE if spec.distinguisherMethod is None else spec.distinguisherMethod.type
    return Row([fs.metadata.name, spec.priorityLevelConfiguration.name, spec.matchingPrecedence, method,
                since(fs.metadata.creationTimestamp), dangling(fs.status.conditions)])


FLOW_SCHEMAS = printer(
    [name_column(),
     column("PriorityLevel", "`name` is the name of the priority level configuration being referenced Required."),
     column("MatchingPrecedence", "`matchingPrecedence` is used to choose among the FlowSchemas that match a given "
                                  "request. The chosen FlowSchema is among those with the numerically lowest "
                                  "(which we take to be logically highest) MatchingPrecedence.  Each "
                                  "MatchingPrecedence value must be ranged in [1,10000]. Note that if the "
                                  "precedence is not specified, it will be set to 1000 as default."),
     column("DistinguisherMethod", "`distinguisherMethod` defines how to compute the flow distinguisher for "
                                   "requests that match this schema. `nil` specifies that the distinguisher is "
                                   "disabled and thus will always be the empty string."),
     age_column(),
     column("MissingPL", "references a broken or non-existent PriorityLevelConfiguration")],
    FlowSchema,
    flow_schema_row,
)


class Queuing(msgspec.Struct):
    queues: int = 0
    handSize: int = 0
    queueLengthLimit: int = 0


class LimitResponse(msgspec.Struct):
    queuing: Queuing | None = None


class Limited(msgspec.Struct):
    nominalConcurrencyShares: int | None = None
    limitResponse: LimitResponse = msgspec.field(default_factory=LimitResponse)


class PriorityLevelSpec(msgspec.Struct):
    type: str = ""
    limited: Limited | None = None


class PriorityLevelConfiguration(msgspec.Struct):
    metadata: Meta = msgspec.field(default_factory=Meta)
    spec: PriorityLevelSpec = msgspec.field(default_factory=PriorityLevelSpec)


def priority_level_row(plc: PriorityLevelConfiguration) -> Row:
    shares: Cell = NONE
    queues: Cell = NONE
    hand_size: Cell = NONE
    queue_length: Cell = NONE
    if (limited := plc.spec.limited) is not None:
        shares = limited.nominalConcurrencyShares or 0
        if (queuing := limited.limitResponse.queuing) is not None:
            queues, hand_size, queue_length = queuing.queues, queuing.handSize, queuing.queueLengthLimit
    return Row([plc.metadata.name, plc.spec.type, shares, queues, hand_size, queue_length,
                since(plc.metadata.creationTimestamp)])


PRIORITY_LEVEL_CONFIGURATIONS = printer(
    [name_column(),
     column("Type", "`type` indicates whether this priority level is subject to limitation on request execution.  "
                    "A value of `\"Exempt\"` means that requests of this priority level are not subject to a limit "
                    "(and thus are never queued) and do not detract from the capacity made available to other "
                    "priority levels.  A value of `\"Limited\"` means that (a) requests of this priority level "
                    "_are_ subject to limits and (b) some of the server's limited capacity is made available "
                    "exclusively to this priority level. Required."),
     column("NominalConcurrencyShares",
            "`nominalConcurrencyShares` (NCS) contributes to the computation of the NominalConcurrencyLimit "
            "(NominalCL) of this level. This is the number of execution seats available at this priority level. "
            "This is used both for requests dispatched from this priority level as well as requests dispatched "
            "from other priority levels borrowing seats from this level. The server's concurrency limit "
            "(ServerCL) is divided among the Limited priority levels in proportion to their NCS values:\n\n"
            "NominalCL(i)  = ceil( ServerCL * NCS(i) / sum_ncs ) sum_ncs = sum[priority level k] NCS(k)\n\n"
            "Bigger numbers mean a larger nominal concurrency limit, at the expense of every other priority "
            "level.\n\nIf not specified, this field defaults to a value of 30.\n\nSetting this field to zero "
            "supports the construction of a \"jail\" for this priority level that is used to hold some request(s)"),
     column("Queues", "`queues` is the number of queues for this priority level. The queues exist independently at "
                      "each apiserver. The value must be positive.  Setting it to 1 effectively precludes "
                      "shufflesharding and thus makes the distinguisher method of associated flow schemas "
                      "irrelevant.  This field has a default value of 64."),
     column("HandSize", "`handSize` is a small positive number that configures the shuffle sharding of requests "
                        "into queues.  When enqueuing a request at this priority level the request's flow "
                        "identifier (a string pair) is hashed and the hash value is used to shuffle the list of "
                        "queues and deal a hand of the size specified here.  The request is put into one of the "
                        "shortest queues in that hand. `handSize` must be no larger than `queues`, and should be "
                        "significantly smaller (so that a few heavy flows do not saturate most of the queues).  "
                        "See the user-facing documentation for more extensive guidance on setting this field.  "
                        "This field has a default value of 8."),
     column("QueueLengthLimit", "`queueLengthLimit` is the maximum number of requests allowed to be waiting in a "
                                "given queue of this priority level at a time; excess requests are rejected.  This "
                                "value must be positive.  If not specified, it will be defaulted to 50."),
     age_column()],
    PriorityLevelConfiguration,
    priority_level_row,
)
